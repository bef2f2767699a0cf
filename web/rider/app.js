/*
 * The rider app: sign-in by one-time link, the online switch and position pings, offers, and the
 * job from pickup to hand-over. A client of the rider API (/api/v1/rider/...) only; every word it
 * shows comes from strings.js.
 */
import { STRINGS, t } from './strings.js';

const API = '/api/v1';
const TOKEN_KEY = 'rider.token';
const ONLINE_KEY = 'rider.online';
/** A position is sent at most this often; in between, only the newest one is kept. */
const SEND_EVERY_MS = 5000;
/** Offers are asked for this often while online and free: a few hundred bytes each time. */
const OFFERS_EVERY_MS = 4000;
/** While online, the app asks this often whether the service still counts the rider online. */
const AVAILABILITY_EVERY_MS = 60000;
/** The job is read again this often, to notice a cancel by the sender. */
const JOB_EVERY_MS = 10000;
/** Hand-over photos are downscaled on the phone to this long side before upload. */
const PHOTO_MAX_SIDE = 1280;

const $ = (id) => document.getElementById(id);

const state = {
  token: localStorage.getItem(TOKEN_KEY),
  online: false,
  watchId: null,
  lastPosition: null,
  unsent: false,
  lastSentAt: 0,
  sendTimer: null,
  offersTimer: null,
  availabilityTimer: null,
  availabilitySent: Promise.resolve(),
  offersKey: '',
  offerMaps: [],
  job: null,
  jobTimer: null,
  jobMap: null,
  otp: '',
  photo: null,
  busy: false,
};

/** A refusal from the API (or no answer at all: status 0), with what the envelope said. */
class Refusal extends Error {
  constructor(status, code, message = '', details = {}) {
    super(message || code);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

async function call(method, path, body, { token = state.token } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  let payload;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(API + path, { method, headers, body: payload, cache: 'no-store' });
  } catch {
    throw new Refusal(0, 'network');
  }
  if (res.status === 204) return null;
  const data = await res.json().catch(() => null);
  if (res.ok) return data;
  const error = (data && data.error) || {};
  if (res.status === 401 && token) {
    // A revoked, replaced or expired token: back to sign-in, saying why.
    signedOut(error.details && error.details.reason === 'expired' ? 'reasonExpired' : 'reasonRevoked');
  }
  throw new Refusal(res.status, error.code || 'error', error.message, error.details || {});
}

/** What a refusal means to a rider. */
function explain(refusal) {
  const { status, details } = refusal;
  if (status === 0) return t('errorNetwork');
  if (status === 400) {
    if (typeof details.otp === 'string') {
      if (/locked/.test(details.otp)) return t('errorCodeLocked');
      if (/another|not issued/.test(details.otp)) return t('errorBusy');
      if (/required/.test(details.otp)) return t('errorCodeMissing');
      return t('errorWrongCode');
    }
    if (typeof details.photo === 'string') return /required/.test(details.photo) ? t('errorPhotoMissing') : t('errorPhotoBad');
    // The final drop's refusal names the next stop too; it reads better as "every stop first".
    if (/additional stop/.test(refusal.message)) return t('errorStopsFirst');
    if (typeof details.next_stop === 'number') return t('errorStopsInOrder', { n: details.next_stop + 1 });
    if (details.status) return t('errorOutOfOrder');
    return t('errorOther');
  }
  if (status === 404) return t('errorNotYours');
  if (status === 409) return /current job/i.test(refusal.message) ? t('finishCurrentJob') : t('takenByAnother');
  if (status === 413) return t('errorPhotoTooBig');
  if (status === 429) return t('errorRateLimited');
  if (status === 503) return t('errorBusy');
  return t('errorOther');
}

// ---- Screens ------------------------------------------------------------------------------

function show(screen) {
  for (const el of document.querySelectorAll('.screen')) el.hidden = el.id !== `screen-${screen}`;
  $('sign-out').hidden = screen === 'sign-in' || screen === 'loading';
  $('toast').hidden = true;
  window.scrollTo(0, 0);
}

let toastTimer = null;
function toast(text) {
  const el = $('toast');
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.hidden = true), 6000);
}

function fillTexts() {
  document.documentElement.lang = 'en';
  document.title = STRINGS.appName;
  for (const el of document.querySelectorAll('[data-text]')) el.textContent = t(el.dataset.text);
}

function showNetwork() {
  const online = navigator.onLine;
  $('offline-banner').hidden = online;
  $('net').textContent = online ? '' : t('offlinePill');
  $('net').classList.toggle('off', !online);
}

// ---- Sign-in and sign-out -----------------------------------------------------------------

function showSignIn(reasonKey) {
  show('sign-in');
  $('sign-in-status').textContent = t('signInHelp');
  $('sign-in-reason').hidden = !reasonKey;
  $('sign-in-reason').textContent = reasonKey ? t(reasonKey) : '';
}

async function signIn(code) {
  show('sign-in');
  $('sign-in-reason').hidden = true;
  $('sign-in-status').textContent = t('signInWorking');
  try {
    const answer = await call('POST', '/rider/sign-in', { code }, { token: null });
    state.token = answer.rider_token;
    localStorage.setItem(TOKEN_KEY, state.token);
    // A fresh sign-in starts offline: the rider chooses when to take offers.
    localStorage.removeItem(ONLINE_KEY);
    await enterApp();
  } catch (error) {
    const reason = error.details && error.details.reason;
    const key = { used: 'reasonUsed', expired: 'reasonLinkExpired', unknown: 'reasonUnknown' }[reason];
    showSignIn(null);
    $('sign-in-reason').hidden = false;
    $('sign-in-reason').textContent = key ? t(key) : error.status === 400 ? t('reasonUnknown') : explain(error);
  }
}

/** Forgets the token and stops everything; the sign-in screen says why. */
function signedOut(reasonKey) {
  stopWatching();
  stopOffers();
  stopJobPolling();
  state.online = false;
  state.job = null;
  state.token = null;
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(ONLINE_KEY);
  showSignIn(reasonKey);
}

/**
 * Offline first, then the phone forgets its token. The token itself stays valid on the server
 * (one per rider): signing in again needs a new link, and `rider:revoke` ends it everywhere.
 */
async function signOut() {
  if (state.online) await call('PUT', '/rider/availability', { online: false }).catch(() => undefined);
  signedOut('signedOut');
}

async function enterApp() {
  show('loading');
  let job = null;
  try {
    job = await call('GET', '/rider/deliveries/current');
  } catch (error) {
    if (error.status === 401) return;
    if (error.status !== 404) toast(explain(error));
  }
  if (job) showJob(job);
  else showHome();
  // A rider who was online when the app was last closed is online again (offers only when free).
  if (localStorage.getItem(ONLINE_KEY) === '1') goOnline();
}

// ---- Online, offline and position ---------------------------------------------------------

function renderAvailability() {
  $('availability-state').textContent = state.online ? t('youAreOnline') : t('youAreOffline');
  $('availability-help').textContent = state.online ? t('onlineHelp') : t('offlineHelp');
  const toggle = $('online-switch');
  toggle.setAttribute('aria-checked', String(state.online));
  toggle.textContent = state.online ? t('goOffline') : t('goOnline');
}

function locationProblem(key) {
  $('location-problem').hidden = !key;
  $('location-problem').textContent = key ? t(key) : '';
}

function goOnline() {
  if (!('geolocation' in navigator)) {
    locationProblem('locationUnsupported');
    return;
  }
  // Browsers share a position only with https:// (or localhost) pages.
  if (!window.isSecureContext) {
    locationProblem('locationInsecure');
    return;
  }
  locationProblem(null);
  state.online = true;
  localStorage.setItem(ONLINE_KEY, '1');
  renderAvailability();
  $('position-status').textContent = t('locating');
  state.watchId = navigator.geolocation.watchPosition(onPosition, onPositionError, {
    enableHighAccuracy: true,
    maximumAge: 10000,
    timeout: 30000,
  });
  state.sendTimer = setInterval(() => state.unsent && sendPosition(), SEND_EVERY_MS);
  state.availabilityTimer = setInterval(checkStillOnline, AVAILABILITY_EVERY_MS);
  sendAvailability(true);
  if (!state.job) startOffers();
}

function stopWatching() {
  if (state.watchId !== null) navigator.geolocation.clearWatch(state.watchId);
  state.watchId = null;
  clearInterval(state.sendTimer);
  state.sendTimer = null;
  clearInterval(state.availabilityTimer);
  state.availabilityTimer = null;
}

/**
 * A phone that slept, or lost its network for long, may have been set offline by the service
 * (no job is offered to a rider it cannot hear from): the rider is told why, and goes online again
 * with the switch.
 */
async function checkStillOnline() {
  if (!state.online || !navigator.onLine) return;
  let availability;
  try {
    availability = await call('GET', '/rider/availability');
  } catch {
    return;
  }
  if (availability.online || !state.online) return;
  stopBeingOnline();
  locationProblem(availability.offline_reason === 'signed_out' ? 'setOfflineSignedOut' : 'setOfflineSilent');
}

/**
 * Tells the service the rider's switch, each change after the one before it has been answered:
 * a rider who goes offline right after going online (location refused) must end offline.
 */
function sendAvailability(online) {
  state.availabilitySent = state.availabilitySent
    .then(() => call('PUT', '/rider/availability', { online }))
    .catch((error) => error.status !== 401 && toast(explain(error)));
  return state.availabilitySent;
}

/** Stops what being online runs (position, offers) and shows the rider offline. */
function stopBeingOnline() {
  stopWatching();
  stopOffers();
  state.online = false;
  localStorage.setItem(ONLINE_KEY, '0');
  renderAvailability();
  renderOffers([]);
  $('position-status').textContent = '';
}

async function goOffline() {
  stopBeingOnline();
  await sendAvailability(false);
}

function onPosition(position) {
  state.lastPosition = { lat: position.coords.latitude, lng: position.coords.longitude };
  state.unsent = true;
  locationProblem(null);
  if (Date.now() - state.lastSentAt >= SEND_EVERY_MS) sendPosition();
  if (state.job && state.jobMap) drawJobMap();
}

function onPositionError(error) {
  if (error.code === error.PERMISSION_DENIED) {
    locationProblem('locationDenied');
    goOffline();
  } else {
    locationProblem('locationUnavailable');
  }
}

/**
 * Sends the newest position. Without a network only the last one is kept (an older one is of no
 * use to dispatch), and it goes as soon as the network returns.
 */
async function sendPosition() {
  if (!state.lastPosition || !state.token) return;
  if (!navigator.onLine) {
    $('position-status').textContent = t('positionWaiting');
    return;
  }
  const position = state.lastPosition;
  state.unsent = false;
  state.lastSentAt = Date.now();
  try {
    await call('POST', '/rider/location', position);
    const time = new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    $('position-status').textContent = t('positionSent', { time });
  } catch (error) {
    if (error.status === 401) return;
    // Not sent: try again with whatever is newest by then.
    state.unsent = true;
    $('position-status').textContent = t('positionWaiting');
  }
}

// ---- Offers --------------------------------------------------------------------------------

function startOffers() {
  stopOffers();
  pollOffers();
  state.offersTimer = setInterval(pollOffers, OFFERS_EVERY_MS);
}

function stopOffers() {
  clearInterval(state.offersTimer);
  state.offersTimer = null;
}

async function pollOffers() {
  if (!state.online || state.job || !navigator.onLine) return;
  try {
    renderOffers(await call('GET', '/rider/offers'));
  } catch (error) {
    if (error.status !== 401 && error.status !== 0) toast(explain(error));
  }
}

function clearOfferMaps() {
  for (const map of state.offerMaps) map.remove();
  state.offerMaps = [];
}

function renderOffers(offers) {
  const key = JSON.stringify(offers.map((o) => [o.delivery_id, o.expires_at]));
  if (key === state.offersKey) return;
  state.offersKey = key;
  clearOfferMaps();
  const list = $('offers');
  list.replaceChildren();
  $('no-offers').hidden = offers.length > 0;
  for (const offer of offers) {
    const item = $('offer-template').content.firstElementChild.cloneNode(true);
    item.dataset.deliveryId = offer.delivery_id;
    const route = item.querySelector('.route');
    const add = (term, detail) => {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = detail;
      route.append(dt, dd);
    };
    add(t('offerPickup'), offer.pickup_address);
    offer.stops.forEach((stop, i) => add(t('offerDropoff', { n: i + 1 }), stopLine(stop)));
    add(offer.stops.length ? t('offerFinalDropoff') : t('offerDropoff', { n: 1 }), offer.dropoff_address);
    const size = STRINGS.sizes[offer.package_size] || offer.package_size;
    item.querySelector('.facts').textContent = `${t('offerDistance', { km: offer.distance_km })} · ${t('offerSize', { size })}`;
    const note = item.querySelector('.note');
    note.hidden = !offer.package_description;
    note.textContent = offer.package_description ? t('offerNote', { note: offer.package_description }) : '';
    const ends = new Date(offer.expires_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    item.querySelector('.expires').textContent = t('offerExpires', { time: ends });
    const button = item.querySelector('.accept');
    button.textContent = t('accept');
    button.addEventListener('click', () => accept(offer, button));
    list.append(item);
    const map = drawMap(item.querySelector('.offer-map'), placesOf(offer));
    if (map) state.offerMaps.push(map);
  }
}

function stopLine(stop) {
  const parts = [stop.dropoff_address];
  if (stop.package_description) parts.push(t('offerNote', { note: stop.package_description }));
  return parts.join(' — ');
}

async function accept(offer, button) {
  if (state.busy) return;
  state.busy = true;
  button.disabled = true;
  button.textContent = t('accepting');
  try {
    const job = await call('POST', `/rider/deliveries/${offer.delivery_id}/accept`);
    showJob(job);
  } catch (error) {
    if (error.status === 401) return;
    button.disabled = false;
    button.textContent = t('accept');
    toast(error.status === 404 ? t('offerGone') : explain(error));
    if (error.status === 409 || error.status === 404) {
      state.offersKey = '';
      pollOffers();
    }
  } finally {
    state.busy = false;
  }
}

function showHome() {
  stopJobPolling();
  state.job = null;
  renderAvailability();
  state.offersKey = '';
  if (!state.online) renderOffers([]);
  show('home');
  if (state.online) startOffers();
}

// ---- Maps ----------------------------------------------------------------------------------

/** The job's places in visiting order: pickup, each stop, the final drop. */
function placesOf(job) {
  return [
    { kind: 'pickup', label: 'P', lat: job.pickup_lat, lng: job.pickup_lng },
    ...job.stops.map((stop, i) => ({ kind: 'stop', label: String(i + 1), lat: stop.dropoff_lat, lng: stop.dropoff_lng })),
    { kind: 'dropoff', label: '★', lat: job.dropoff_lat, lng: job.dropoff_lng },
  ];
}

/** A small map of the places (Leaflet, tiles from MAP_TILE_URL or a plain grid, as the tracking page). */
function drawMap(element, places) {
  const L = window.L;
  if (!L) return null;
  const map = L.map(element, { attributionControl: false, zoomControl: false, scrollWheelZoom: false, zoomSnap: 0.5 });
  const tileUrl = document.body.getAttribute('data-tile-url') || '';
  if (tileUrl) {
    L.tileLayer(tileUrl, { maxZoom: 19 }).addTo(map);
    L.control.attribution({ prefix: false }).addAttribution('© OpenStreetMap contributors').addTo(map);
  } else {
    const Grid = L.GridLayer.extend({
      createTile() {
        const tile = document.createElement('div');
        tile.className = 'grid-tile';
        return tile;
      },
    });
    new Grid({ tileSize: 64 }).addTo(map);
  }
  const points = places.map((p) => [p.lat, p.lng]);
  L.polyline(points.filter((_, i) => places[i].kind !== 'me'), { color: '#111', weight: 3, dashArray: '6 8', interactive: false }).addTo(map);
  for (const place of places) {
    const icon = L.divIcon({ className: '', html: `<span class="pin pin-${place.kind}">${place.label}</span>`, iconSize: [26, 26], iconAnchor: [13, 13] });
    L.marker([place.lat, place.lng], { icon, keyboard: false, interactive: false }).addTo(map);
  }
  map.fitBounds(L.latLngBounds(points), { padding: [24, 24], maxZoom: 16 });
  return map;
}

function drawJobMap() {
  if (state.jobMap) state.jobMap.remove();
  const places = placesOf(state.job);
  if (state.lastPosition) places.push({ kind: 'me', label: '', ...state.lastPosition });
  state.jobMap = drawMap($('job-map'), places);
}

// ---- The job -------------------------------------------------------------------------------

function showJob(job) {
  stopOffers();
  clearOfferMaps();
  state.offersKey = '';
  state.job = job;
  state.otp = '';
  setPhoto(null);
  $('job-error').hidden = true;
  show('job');
  renderJob();
  stopJobPolling();
  state.jobTimer = setInterval(refreshJob, JOB_EVERY_MS);
}

function stopJobPolling() {
  clearInterval(state.jobTimer);
  state.jobTimer = null;
}

async function refreshJob() {
  if (!state.job || state.busy || !navigator.onLine) return;
  try {
    const job = await call('GET', '/rider/deliveries/current');
    const changed = job.status !== state.job.status || job.stops.some((s, i) => s.status !== state.job.stops[i].status);
    state.job = job;
    if (changed) renderJob();
  } catch (error) {
    if (error.status === 404) {
      showHome();
      toast(t('jobEnded'));
    }
  }
}

/** Where the rider goes next: the pickup until the parcel is collected, then each drop in order. */
function nextPlace(job) {
  if (job.status === 'accepted') {
    return { stop: null, label: t('pickupAt'), address: job.pickup_address, lat: job.pickup_lat, lng: job.pickup_lng, note: job.package_description, call: null };
  }
  const stop = job.stops.find((s) => s.status === 'pending');
  if (stop) {
    const n = job.stops.indexOf(stop) + 1;
    return { stop, label: t('stopTo', { n, name: stop.recipient_name }), name: stop.recipient_name, address: stop.dropoff_address, lat: stop.dropoff_lat, lng: stop.dropoff_lng, note: stop.package_description, call: stop.call };
  }
  return { stop: null, label: t('deliverTo', { name: job.recipient_name }), name: job.recipient_name, address: job.dropoff_address, lat: job.dropoff_lat, lng: job.dropoff_lng, note: job.package_description, call: job.call };
}

function renderJob() {
  const job = state.job;
  if (job.status === 'delivered') {
    showDone();
    return;
  }
  const next = nextPlace(job);
  $('job-title').textContent = t('jobTitle', { reference: job.reference });
  $('job-state').textContent = t({ accepted: 'statusAccepted', picked_up: 'statusPickedUp', in_transit: 'statusInTransit' }[job.status] || 'statusInTransit');
  $('next-label').textContent = next.label;
  $('next-address').textContent = next.address;
  $('next-note').hidden = !next.note;
  $('next-note').textContent = next.note ? t('offerNote', { note: next.note }) : '';
  // geo: opens whichever maps app the phone has (Google Maps, OsmAnd, …) at the place.
  $('navigate').href = `geo:${next.lat},${next.lng}?q=${next.lat},${next.lng}(${encodeURIComponent(next.address)})`;
  const call = $('call');
  call.hidden = !next.call;
  $('call-help').hidden = !next.call;
  if (next.call) {
    call.href = `tel:${next.call.via}`;
    call.textContent = t('callRecipient', { name: next.name });
  }
  const total = job.stops.length;
  $('stops-progress').hidden = total === 0;
  $('stops-progress').textContent = t('stopsDone', { done: job.stops.filter((s) => s.status === 'delivered').length, total });

  const handingOver = job.status === 'in_transit';
  const method = handingOver ? job.verification_method : 'none';
  $('handover').hidden = method === 'none';
  $('otp').hidden = method !== 'otp';
  $('photo').hidden = method !== 'photo';
  $('otp-help').textContent = t('handoverOtp', { name: next.name });
  $('photo-help').textContent = t('handoverPhoto', { name: next.name });
  renderOtp();

  const step = $('step');
  step.disabled = false;
  step.textContent =
    job.status === 'accepted' ? t('pickedUp') : job.status === 'picked_up' ? t('onMyWay') : next.stop ? t('stopDone') : t('delivered');
  drawJobMap();
}

function renderOtp() {
  $('otp-value').textContent = state.otp || ' ';
}

function setPhoto(blob) {
  state.photo = blob;
  const preview = $('photo-preview');
  if (preview.src) URL.revokeObjectURL(preview.src);
  preview.hidden = !blob;
  if (blob) {
    preview.src = URL.createObjectURL(blob);
    preview.alt = t('photoPreview');
  } else {
    preview.removeAttribute('src');
  }
  $('photo-label-text').textContent = blob ? t('retakePhoto') : t('takePhoto');
}

/** The camera's photo, downscaled on the phone to a JPEG of at most PHOTO_MAX_SIDE: tens of kB, not megabytes. */
async function downscale(file) {
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, PHOTO_MAX_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('toBlob'))), 'image/jpeg', 0.72));
}

async function step() {
  const job = state.job;
  if (!job || state.busy) return;
  const next = nextPlace(job);
  let path;
  let body;
  if (job.status === 'accepted') path = 'pickup';
  else if (job.status === 'picked_up') path = 'depart';
  else {
    path = next.stop ? `stops/${next.stop.index}/complete` : 'deliver';
    if (job.verification_method === 'otp') {
      if (state.otp.length === 0) return showJobError(t('errorCodeMissing'));
      body = { otp: state.otp };
    } else if (job.verification_method === 'photo') {
      if (!state.photo) return showJobError(t('errorPhotoMissing'));
      body = new FormData();
      body.append('photo', state.photo, 'handover.jpg');
    }
  }
  state.busy = true;
  const button = $('step');
  const label = button.textContent;
  button.disabled = true;
  button.textContent = t('working');
  $('job-error').hidden = true;
  try {
    const updated = await call('POST', `/rider/deliveries/${job.delivery_id}/${path}`, body);
    state.job = updated;
    state.otp = '';
    setPhoto(null);
    renderJob();
  } catch (error) {
    if (error.status === 401) return;
    button.disabled = false;
    button.textContent = label;
    showJobError(explain(error));
    if (error.status === 400 && error.details.status) refreshJob();
    if (error.status === 400 && typeof error.details.otp === 'string') {
      state.otp = '';
      renderOtp();
    }
  } finally {
    state.busy = false;
  }
}

function showJobError(text) {
  $('job-error').hidden = false;
  $('job-error').textContent = text;
}

function showDone() {
  stopJobPolling();
  if (state.jobMap) state.jobMap.remove();
  state.jobMap = null;
  state.job = null;
  show('done');
}

// ---- Wiring --------------------------------------------------------------------------------

function wire() {
  $('online-switch').addEventListener('click', () => (state.online ? goOffline() : goOnline()));
  $('sign-out').addEventListener('click', signOut);
  $('step').addEventListener('click', step);
  $('back-to-offers').addEventListener('click', showHome);
  $('keypad').addEventListener('click', (event) => {
    const key = event.target.closest('button')?.dataset.key;
    if (!key) return;
    if (key === 'back') state.otp = state.otp.slice(0, -1);
    else if (key === 'clear') state.otp = '';
    else if (state.otp.length < 6) state.otp += key;
    $('job-error').hidden = true;
    renderOtp();
  });
  $('photo-input').addEventListener('change', async (event) => {
    const file = event.target.files && event.target.files[0];
    event.target.value = '';
    if (!file) return;
    $('job-error').hidden = true;
    try {
      setPhoto(await downscale(file));
    } catch {
      showJobError(t('errorPhotoBad'));
    }
  });
  window.addEventListener('online', () => {
    showNetwork();
    toast(t('backOnline'));
    if (state.unsent) sendPosition();
    if (state.online && !state.job) pollOffers();
  });
  window.addEventListener('offline', showNetwork);
  document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && checkStillOnline());
  // Closing the app takes the rider offline: nobody should be offered a job they cannot see.
  window.addEventListener('pagehide', (event) => {
    if (event.persisted || !state.online || !state.token) return;
    fetch(`${API}/rider/availability`, {
      method: 'PUT',
      keepalive: true,
      headers: { Authorization: `Bearer ${state.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ online: false }),
    }).catch(() => undefined);
  });
}

async function start() {
  fillTexts();
  showNetwork();
  wire();
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('/rider/sw.js', { scope: '/rider/' }).catch(() => undefined);
  const code = location.pathname === '/rider/sign-in' ? location.hash.slice(1) : '';
  // The code is spent once used: take it out of the address, so a reload or a shared screenshot shows nothing.
  if (location.pathname !== '/rider/' || location.hash) history.replaceState(null, '', '/rider/');
  if (code) await signIn(code);
  else if (state.token) await enterApp();
  else showSignIn(null);
}

start();
