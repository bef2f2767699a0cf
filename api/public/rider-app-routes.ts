import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Router, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { AppDeps } from '../app-deps';
import { allowOnly } from '../middleware/allow-only';
import { tileSource } from '../../web/map-tiles';
import { pageDirectives } from '../middleware/page-policy';

const RIDER_DIR = path.resolve(__dirname, '../../web/rider');
const LEAFLET_DIR = path.dirname(require.resolve('leaflet/dist/leaflet.js'));

/** One file of the app, held in memory with its gzip form: the whole app is under 200 kB. */
interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
  cacheControl: string;
}

function asset(body: Buffer, type: string, cacheControl: string): Asset {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { type, body, gzip: gzipSync(body, { level: 9 }), etag, cacheControl };
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Sends an asset gzipped when the phone takes it (every browser does), with an ETag so a check
 * that finds it unchanged costs a 304. Riders pay for mobile data by the megabyte: Leaflet alone
 * is 148 kB as it is and 43 kB gzipped.
 */
function send(req: Request, res: Response, file: Asset): void {
  res.setHeader('Cache-Control', file.cacheControl);
  res.setHeader('ETag', file.etag);
  res.setHeader('Vary', 'Accept-Encoding');
  res.type(file.type);
  if (req.headers['if-none-match'] === file.etag) {
    res.status(304).end();
    return;
  }
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  res.send(gzip ? file.gzip : file.body);
}

/**
 * The rider app at /rider: an installable web app (manifest and service worker, scope /rider/)
 * made of plain files in web/rider/, a client of the rider API only. Pages and scripts are
 * revalidated on each load from the network (`no-cache`); once installed, the service worker
 * serves them from its cache, and a new version of any file changes the worker itself (its
 * VERSION is a hash of every file), so phones pick it up on their next start.
 */
export function createRiderAppRouter({ settings }: AppDeps): Router {
  const router = Router();
  const tiles = tileSource(settings.mapTileUrl);
  const read = (name: string) => readFileSync(path.join(RIDER_DIR, name));
  const revalidate = 'no-cache';

  const files: Record<string, Asset> = {
    'app.js': asset(read('app.js'), 'text/javascript', revalidate),
    'strings.js': asset(read('strings.js'), 'text/javascript', revalidate),
    'app.css': asset(read('app.css'), 'text/css', revalidate),
    'manifest.webmanifest': asset(read('manifest.webmanifest'), 'application/manifest+json', revalidate),
    'icon.svg': asset(read('icon.svg'), 'image/svg+xml', 'public, max-age=86400'),
    'leaflet/leaflet.js': asset(readFileSync(path.join(LEAFLET_DIR, 'leaflet.js')), 'text/javascript', 'public, max-age=86400'),
    'leaflet/leaflet.css': asset(readFileSync(path.join(LEAFLET_DIR, 'leaflet.css')), 'text/css', 'public, max-age=86400'),
  };
  const page = asset(
    Buffer.from(read('index.html').toString('utf8').replace('{{TILE_URL}}', escapeAttribute(tiles ? (settings.mapTileUrl as string) : ''))),
    'text/html',
    revalidate,
  );
  const version = createHash('sha256')
    .update(page.etag)
    .update(Object.values(files).map((f) => f.etag).join())
    .digest('base64url')
    .slice(0, 12);
  const worker = asset(Buffer.from(read('sw.js').toString('utf8').replace('{{VERSION}}', version)), 'text/javascript', revalidate);

  const policy = helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: pageDirectives(tiles, {
      // blob: the hand-over photo's preview, made on the phone before upload.
      'img-src': ["'self'", 'data:', 'blob:', ...(tiles ? [tiles] : [])],
      'worker-src': ["'self'"],
      'manifest-src': ["'self'"],
    }),
  });

  const pages = ['/rider/', '/rider/sign-in'];
  for (const route of [...pages, '/rider/sw.js', ...Object.keys(files).map((name) => `/rider/${name}`)]) {
    router.all(route, allowOnly('GET'));
  }
  router.get(pages, policy, (req, res) => {
    // The service worker's scope is /rider/: the app lives below it, so /rider is only a way in.
    // (Express matches `/rider/` to a request for `/rider` too: the address as sent decides.)
    if (req.originalUrl.split('?')[0] === '/rider') {
      res.redirect(301, '/rider/');
      return;
    }
    // The sign-in link's code stays in the fragment: no referrer may carry the address anywhere.
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Robots-Tag', 'noindex, nofollow');
    send(req, res, page);
  });
  router.get('/rider/sw.js', (req, res) => send(req, res, worker));
  for (const [name, file] of Object.entries(files)) router.get(`/rider/${name}`, (req, res) => send(req, res, file));
  return router;
}
