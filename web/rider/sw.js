/*
 * The rider app's service worker (scope /rider/). The app's few files are kept in a cache named
 * for this version, so a later start costs no data and works without a network; the server
 * writes VERSION from a hash of every file, so any change to the app installs a new worker.
 * API calls and map tiles always go to the network: offers and jobs are live.
 */
const VERSION = '{{VERSION}}';
const CACHE = `rider-${VERSION}`;
const SHELL = '/rider/';
const FILES = [
  SHELL,
  '/rider/app.js',
  '/rider/strings.js',
  '/rider/app.css',
  '/rider/manifest.webmanifest',
  '/rider/icon.svg',
  '/rider/leaflet/leaflet.js',
  '/rider/leaflet/leaflet.css',
];

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith('rider-') && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !url.pathname.startsWith('/rider/')) return;
  // Every page of the app is the same document (the sign-in link's code is in its fragment).
  const key = request.mode === 'navigate' ? SHELL : url.pathname;
  event.respondWith(
    caches.open(CACHE).then((cache) =>
      cache.match(key).then((cached) => cached || fetch(request)),
    ),
  );
});
