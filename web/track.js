// The hosted tracking page: polls the public view, keeps the last good view on screen while the
// connection is down, and stops polling once the delivery is over.
(function () {
  'use strict';

  /** The contract recommends 5 to 10 seconds; `?poll=` may change it within these bounds. */
  const DEFAULT_POLL_SECONDS = 6;
  const MIN_POLL_SECONDS = 1;
  const MAX_POLL_SECONDS = 30;
  /** Retries while the connection is down back off to this at most. */
  const MAX_RETRY_MS = 30000;
  const REQUEST_TIMEOUT_MS = 10000;
  const TERMINAL = ['delivered', 'cancelled', 'expired'];
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

  const HEADLINES = {
    pending: ['Looking for a rider', 'Your rider will appear here as soon as one accepts the job.'],
    accepted: ['A rider is on the way to collect your parcel', ''],
    picked_up: ['Your parcel has been collected', 'The rider is about to set off.'],
    in_transit: ['Your parcel is on its way', ''],
    delivered: ['Delivered', ''],
    cancelled: ['This delivery was cancelled', 'Contact the sender if you were expecting this parcel.'],
    expired: ['No rider was found', 'The sender can book the delivery again.'],
  };
  /** The delivery's status in the contract's own words, as the sender's dashboard names it (domain/lifecycle.ts). */
  const STATUS_NAMES = JSON.parse(document.body.getAttribute('data-status-names') || '{}');
  const STEPS = [
    ['pending', 'Booked'],
    ['accepted', 'Rider assigned'],
    ['picked_up', 'Picked up'],
    ['in_transit', 'On the way'],
    ['delivered', 'Delivered'],
  ];
  const STEP_LABELS = { cancelled: 'Cancelled', expired: 'No rider found' };
  const SIZES = { small: 'Small parcel', medium: 'Medium parcel', large: 'Large parcel' };

  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(window.location.search);
  const deliveryId = (params.get('id') || '').trim();
  const requested = Number(params.get('poll'));
  const pollMs =
    1000 * (Number.isFinite(requested) && requested > 0 ? Math.min(MAX_POLL_SECONDS, Math.max(MIN_POLL_SECONDS, requested)) : DEFAULT_POLL_SECONDS);
  const tileUrl = document.body.getAttribute('data-tile-url') || '';

  let timer = null;
  let failures = 0;
  let finished = false;
  let pausedWhileHidden = false;
  let map = null;

  function show(id, visible) {
    $(id).hidden = !visible;
  }

  function setText(id, text) {
    $(id).textContent = text;
  }

  function clock(iso) {
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  }

  function minutesText(min) {
    return min <= 1 ? 'about 1 min' : 'about ' + min + ' min';
  }

  // ---- polling ----------------------------------------------------------------------------

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }

  async function poll() {
    timer = null;
    if (finished) return;
    if (document.hidden) {
      // Nobody is looking: resume when the page is shown again.
      pausedWhileHidden = true;
      return;
    }
    const controller = new AbortController();
    const abort = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    let retryAfterMs = 0;
    try {
      const response = await fetch('/api/v1/track/' + encodeURIComponent(deliveryId) + '/public', {
        headers: { Accept: 'application/json' },
        cache: 'no-store',
        credentials: 'omit',
        signal: controller.signal,
      });
      if (response.status === 404) {
        showMissing();
        return;
      }
      if (!response.ok) {
        retryAfterMs = 1000 * (Number(response.headers.get('Retry-After')) || 0);
        throw new Error('HTTP ' + response.status);
      }
      const view = await response.json();
      failures = 0;
      show('banner', false);
      render(view);
      if (TERMINAL.includes(view.status)) {
        finished = true;
        return;
      }
      schedule(pollMs);
    } catch {
      failures += 1;
      // The last view stays on screen; only the banner says it may be out of date.
      show('banner', true);
      const backoff = Math.min(pollMs * Math.pow(2, failures - 1), Math.max(pollMs, MAX_RETRY_MS));
      schedule(Math.max(backoff, retryAfterMs));
    } finally {
      clearTimeout(abort);
    }
  }

  function showMissing() {
    finished = true;
    clearTimeout(timer);
    show('loading', false);
    show('view', false);
    show('banner', false);
    show('missing', true);
    document.title = 'Delivery not found';
  }

  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && pausedWhileHidden && !finished) {
      pausedWhileHidden = false;
      schedule(0);
    }
  });
  // The phone says the network is back: no need to wait out the backoff.
  window.addEventListener('online', () => {
    if (failures > 0 && !finished) schedule(0);
  });

  // ---- rendering --------------------------------------------------------------------------

  function render(view) {
    show('loading', false);
    show('missing', false);
    show('view', true);

    setText('reference', view.reference);
    document.title = 'Tracking ' + view.reference;
    renderStatus(view);
    renderRider(view.rider);
    renderTimeline(view);
    renderRoute(view);
    renderMap(view);
    setText('updated', 'Updated ' + new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }));
  }

  function renderStatus(view) {
    const headline = HEADLINES[view.status] || [view.status, ''];
    const card = $('status-card');
    card.setAttribute('data-status', view.status);
    setText('status-name', STATUS_NAMES[view.status] || view.status);
    card.classList.toggle('is-done', view.status === 'delivered');
    card.classList.toggle('is-stopped', view.status === 'cancelled' || view.status === 'expired');
    setText('status-label', headline[0]);

    let note = headline[1];
    const stopsLeft = view.stops.filter((s) => s.status !== 'delivered').length;
    if (stopsLeft > 0 && (view.status === 'picked_up' || view.status === 'in_transit')) {
      note = 'The rider has ' + stopsLeft + (stopsLeft === 1 ? ' stop' : ' stops') + ' before yours.';
    }
    if (view.status === 'delivered') {
      const done = view.events.find((e) => e.status === 'delivered');
      note = done ? 'Handed over at ' + clock(done.created_at) + '.' : '';
    }
    setText('status-note', note);

    if (view.eta_min === null || view.eta_min === undefined) {
      show('eta', false);
    } else {
      const at = new Date(Date.now() + view.eta_min * 60000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
      setText('eta-minutes', view.eta_min <= 0 ? 'Arriving now' : 'Arriving in ' + minutesText(view.eta_min));
      setText('eta-clock', view.eta_min <= 0 ? '' : 'Expected around ' + at);
      show('eta', true);
    }
  }

  function renderRider(rider) {
    show('rider-card', Boolean(rider));
    if (!rider) return;
    setText('rider-initial', (rider.name || '?').charAt(0).toUpperCase());
    setText('rider-name', rider.name);
    const meta = [];
    if (rider.vehicle) meta.push(rider.vehicle);
    if (rider.rating !== null && rider.rating !== undefined) meta.push('★ ' + Number(rider.rating).toFixed(1));
    setText('rider-meta', meta.join(' · '));
  }

  function renderTimeline(view) {
    const at = {};
    for (const event of view.events) at[event.status] = event.created_at;
    const list = $('timeline');
    list.textContent = '';
    let steps = STEPS;
    if (view.status === 'cancelled' || view.status === 'expired') {
      // Only what happened, then how it ended.
      steps = STEPS.filter((step) => at[step[0]]).concat([[view.status, STEP_LABELS[view.status]]]);
    }
    for (const [status, label] of steps) {
      const item = document.createElement('li');
      const name = document.createElement('span');
      name.textContent = label;
      item.appendChild(name);
      if (at[status]) {
        item.classList.add('is-done');
        const time = document.createElement('time');
        time.dateTime = at[status];
        time.textContent = clock(at[status]);
        item.appendChild(time);
      }
      if (status === view.status) item.classList.add('is-current');
      if (status === 'cancelled' || status === 'expired') item.classList.add('is-failed');
      list.appendChild(item);
    }
  }

  function renderRoute(view) {
    setText('pickup-address', view.pickup_address);
    setText('dropoff-address', view.dropoff_address);
    setText('recipient', view.recipient_name ? 'For ' + view.recipient_name : '');
    setText('package-size', SIZES[view.package_size] || view.package_size);
    show('stops-term', view.stops.length > 0);
    show('stops-detail', view.stops.length > 0);
    const list = $('stops');
    list.textContent = '';
    view.stops.forEach((stop) => {
      const item = document.createElement('li');
      item.textContent =
        stop.status === 'delivered'
          ? 'Delivered'
          : stop.eta_min !== null && stop.eta_min !== undefined
            ? 'In ' + minutesText(stop.eta_min)
            : 'Not yet delivered';
      list.appendChild(item);
    });
  }

  // ---- map --------------------------------------------------------------------------------

  const layers = { pickup: null, dropoff: null, stops: [], route: null, rider: null, riderShownOnce: false, framed: [] };
  /** Once the reader touches the map, the page stops re-framing it. */
  let readerMovedMap = false;
  /** A frame asked for while the map had no room, done as soon as it has some. */
  let framePending = false;

  const FRAME_PADDING_TOP_LEFT = [32, 32];
  const FRAME_PADDING_BOTTOM_RIGHT = [32, 44];
  /**
   * Below this the map cannot hold its padding and a route: Leaflet would answer with its
   * closest zoom, centred between the pins, with none of them in sight.
   */
  const MIN_FRAME_PX = 120;

  function frame(points) {
    layers.framed = points;
    const container = map.getContainer();
    if (container.clientWidth < MIN_FRAME_PX || container.clientHeight < MIN_FRAME_PX) {
      // Hidden or squeezed for a moment (a rotating phone, a tab coming back, a full-page capture).
      framePending = true;
      return;
    }
    framePending = false;
    map.invalidateSize({ pan: false });
    // Without animation: Leaflet ignores a new view while a zoom animation is under way, so an
    // animated frame could swallow the next one and leave the map on a stale view.
    map.fitBounds(window.L.latLngBounds(points), {
      paddingTopLeft: FRAME_PADDING_TOP_LEFT,
      paddingBottomRight: FRAME_PADDING_BOTTOM_RIGHT,
      maxZoom: 16,
      animate: false,
    });
  }

  /** The map's own box changed size: frame again, unless the reader has taken over. */
  function onMapResized() {
    if (layers.framed.length > 0 && (!readerMovedMap || framePending)) frame(layers.framed);
    else map.invalidateSize();
  }

  function pinIcon(kind, label, extraClass) {
    const size = kind === 'rider' ? 34 : 28;
    const pin = document.createElement('div');
    pin.className = 'pin pin-' + kind + (extraClass ? ' ' + extraClass : '');
    pin.textContent = label;
    return window.L.divIcon({ className: 'pin-icon', html: pin, iconSize: [size, size], iconAnchor: [size / 2, size / 2] });
  }

  function createMap() {
    const L = window.L;
    map = L.map('map', { attributionControl: false, zoomControl: true, scrollWheelZoom: false, zoomSnap: 0.5 });
    if (tileUrl) {
      L.tileLayer(tileUrl, { maxZoom: 19, attribution: '© OpenStreetMap contributors' }).addTo(map);
      L.control.attribution({ prefix: false }).addAttribution('© OpenStreetMap contributors').addTo(map);
    } else {
      // No tile server configured: a local grid keeps a sense of movement without any download.
      const Grid = L.GridLayer.extend({
        createTile() {
          const tile = document.createElement('div');
          tile.className = 'grid-tile';
          return tile;
        },
      });
      new Grid({ tileSize: 64 }).addTo(map);
    }
    L.control.scale({ imperial: false, position: 'bottomleft' }).addTo(map);
    map.getContainer().addEventListener('pointerdown', () => (readerMovedMap = true));
    // The container, not the window: it is what the framing depends on, and it also changes
    // when the page around it does.
    if (typeof window.ResizeObserver === 'function') {
      new window.ResizeObserver(onMapResized).observe(map.getContainer());
    } else {
      window.addEventListener('resize', onMapResized);
    }
  }

  function renderMap(view) {
    const L = window.L;
    const mapElement = $('map');
    if (!L) {
      // Leaflet did not load: the rest of the page still works.
      mapElement.parentElement.hidden = true;
      return;
    }
    const first = map === null;
    if (first) createMap();

    const pickup = [view.pickup_lat, view.pickup_lng];
    const dropoff = [view.dropoff_lat, view.dropoff_lng];
    if (!layers.pickup) layers.pickup = L.marker(pickup, { icon: pinIcon('pickup', 'P'), title: 'Pickup', keyboard: false }).addTo(map);
    if (!layers.dropoff) layers.dropoff = L.marker(dropoff, { icon: pinIcon('dropoff', '★'), title: 'Drop-off', keyboard: false }).addTo(map);

    view.stops.forEach((stop, i) => {
      const icon = pinIcon('stop', String(i + 1), stop.status === 'delivered' ? 'is-delivered' : '');
      if (!layers.stops[i]) {
        layers.stops[i] = L.marker([stop.dropoff_lat, stop.dropoff_lng], { icon, title: 'Stop ' + (i + 1), keyboard: false }).addTo(map);
      } else {
        layers.stops[i].setIcon(icon);
      }
    });
    show('legend-stops', view.stops.length > 0);

    const path = [pickup].concat(view.stops.map((s) => [s.dropoff_lat, s.dropoff_lng]), [dropoff]);
    if (!layers.route) layers.route = L.polyline(path, { color: '#5b6773', weight: 3, opacity: 0.7, dashArray: '6 8', interactive: false }).addTo(map);

    const rider = view.rider;
    const live = rider && rider.lat !== null && rider.lng !== null && !TERMINAL.includes(view.status);
    if (live) {
      if (!layers.rider) {
        layers.rider = L.marker([rider.lat, rider.lng], { icon: pinIcon('rider', ''), title: 'Rider', keyboard: false, zIndexOffset: 1000 }).addTo(map);
      } else {
        layers.rider.setLatLng([rider.lat, rider.lng]);
      }
    } else if (layers.rider) {
      layers.rider.remove();
      layers.rider = null;
    }
    show('legend-rider', Boolean(live));

    // Frame everything once, and again when the rider first appears; otherwise leave the
    // view where the reader put it.
    if (first || (live && !layers.riderShownOnce && !readerMovedMap)) {
      if (live) layers.riderShownOnce = true;
      frame(path.concat(live ? [[rider.lat, rider.lng]] : []));
    }
  }

  // ---- start ------------------------------------------------------------------------------

  if (!UUID.test(deliveryId)) {
    showMissing();
  } else {
    poll();
  }
})();
