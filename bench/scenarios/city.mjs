// A city at its peak, open loop: every online rider's phone sends its position on a fixed beat,
// deliveries are booked at a steady rate and each is ridden to `delivered` by a simulated rider
// app, its recipient polls the tracking view and its partner polls the record, while quotes and
// place look-ups go on beside them and the partner's receiver times every callback.
//
// The deliveries in flight are reached before the measured window: a ramp books them faster,
// with trips that end one by one at the steady booking rate, so in-flight stays level as the
// steady bookings take over (Little's law: in flight = booking rate × trip time).
import { randomBytes, randomUUID } from 'node:crypto';
import { ACCRA_BOUNDS, bookingBody, sleep } from '../lib/client.mjs';
import { jsonLineOf } from '../lib/json-line.mjs';
import { liveHeaps } from '../lib/live-heap.mjs';
import { memoryNow } from '../lib/memory.mjs';
import { machineBusySeconds } from '../lib/cpu.mjs';
import { EndpointStats, httpClient, onSchedule, timed } from '../lib/open-loop.mjs';
import { unitCosts } from '../lib/unit-costs.mjs';
import { stickyCacheBetween, workerTotals } from '../lib/worker-metrics.mjs';
import { summary } from '../lib/stats.mjs';
import { CITY_TARGETS, isRiderStep, p99TargetOf } from '../lib/city-report.mjs';

/** A phone's hand-over photo after the rider app shrinks it to 1280 px: about 200 kB of JPEG. */
const PHOTO = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(200 * 1024)]);

const STEP_EVENTS = { accept: 'delivery.accepted', pickup: 'delivery.picked_up', depart: 'delivery.in_transit', deliver: 'delivery.delivered' };

/**
 * The `n`-th client's loopback address, one of `count` (Linux routes all of 127.0.0.0/8 to the
 * loopback device), or undefined for 127.0.0.1 when there is one.
 */
function loopbackAddress(n, count) {
  if (count <= 1) return undefined;
  const k = n % count;
  return `127.${10 + (k >> 16)}.${(k >> 8) & 255}.${k & 255}`;
}

/** Metres to degrees near the equator, close enough for placing points in a city. */
const DEG_PER_KM = 1 / 111.32;

function multipartPhoto() {
  const boundary = `----city${randomUUID().replace(/-/g, '')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="photo"; filename="handover.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
  );
  return { raw: Buffer.concat([head, PHOTO, Buffer.from(`\r\n--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

/** A point `km` from `from` in a random direction, kept inside the city's box. */
function pointNear(from, km, bounds) {
  const angle = Math.random() * 2 * Math.PI;
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
  return {
    lat: clamp(from.lat + Math.sin(angle) * km * DEG_PER_KM, bounds.south, bounds.north),
    lng: clamp(from.lng + Math.cos(angle) * km * DEG_PER_KM, bounds.west, bounds.east),
  };
}

/** Samples in MB, each at its ms from the first, for the results file. */
function samplesOf(samples) {
  return samples.map((m) => ({ at: Math.round(m.at - samples[0].at), ...Object.fromEntries(Object.entries(m.mb).map(([k, v]) => [k, v === null ? null : Math.round(v)])) }));
}

/** Whether memory stayed flat: the last minute's mean against the first's, per process. */
function memoryTrend(samples) {
  if (samples.length < 2) return {};
  const span = samples.at(-1).at - samples[0].at;
  const window = Math.min(60_000, span / 3);
  const mean = (list, name) => list.reduce((sum, s) => sum + (s.mb[name] ?? 0), 0) / Math.max(1, list.length);
  const first = samples.filter((s) => s.at - samples[0].at <= window);
  const last = samples.filter((s) => samples.at(-1).at - s.at <= window);
  return Object.fromEntries(
    Object.keys(samples[0].mb).map((name) => {
      const from = mean(first, name);
      const to = mean(last, name);
      return [name, { firstMb: Math.round(from), lastMb: Math.round(to), peakMb: Math.round(Math.max(...samples.map((s) => s.mb[name] ?? 0))), growthPct: from ? Math.round((100 * (to - from)) / from) : null }];
    }),
  );
}

/** Starts PostgreSQL's statement statistics afresh; false where the server was not started with them. */
async function resetStatementStats(db) {
  try {
    await db.query('create extension if not exists pg_stat_statements');
    await db.query('select pg_stat_statements_reset()');
    return true;
  } catch {
    return false;
  }
}

/** Where PostgreSQL's time went since the reset: the statements that took most of it. */
async function topStatements(db, seconds) {
  const { rows } = await db.query(
    `select regexp_replace(query, '\\s+', ' ', 'g') as query, calls, total_exec_time, rows
     from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
     order by total_exec_time desc limit 12`,
  );
  return rows.map((r) => ({
    query: r.query.slice(0, 160),
    calls: Number(r.calls),
    perSecond: Number(r.calls) / seconds,
    meanMs: Number(r.total_exec_time) / Math.max(1, Number(r.calls)),
    // Of one core, over the window: execution time, which for data in memory is mostly CPU.
    cores: Number(r.total_exec_time) / 1000 / seconds,
  }));
}

async function databaseCounters(db) {
  const { rows } = await db.query(
    `select xact_commit + xact_rollback as transactions, tup_inserted + tup_updated + tup_deleted as rows_written,
            tup_returned + tup_fetched as rows_read, blks_hit + blks_read as blocks
     from pg_stat_database where datname = current_database()`,
  );
  return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
}

export async function cityScenario(ctx) {
  const o = ctx.options.city;
  const { south, north, west, east } = ACCRA_BOUNDS;
  const { riders: seededRiders } = await jsonLineOf(
    ctx.tsx,
    ['bench/seed-city-riders.ts', String(o.riders), ...[south, north, west, east].map(String)],
    { cwd: ctx.root, env: { DATABASE_URL: ctx.databaseUrl } },
    "Seeding the city's riders",
  );

  const client = httpClient(ctx.apiUrl, { maxSockets: o.sockets });
  // What one measured window saw; a new one starts at each rider count measured.
  const newWindow = () => ({ stats: new EndpointStats(), lags: [], lagsByEvent: {}, failures: [], webhookWaits: [], missing: 0, completedIds: [], noRiderFree: 0 });
  let w = newWindow();
  let stopping = false;
  const stopped = () => stopping;
  const cancels = [];
  // Each phone and each recipient's page sends from an address of its own; partners from 127.0.0.1.
  const riders = seededRiders.map((r, i) => ({ ...r, at: { lat: r.lat, lng: r.lng }, busy: false, from: loopbackAddress(i, o.addresses) }));
  let pages = 0;
  // Riders a job can be booked beside: only those whose phones ping (pingUpTo adds them), since
  // dispatch offers nothing to a rider it has not heard from lately.
  const free = [];
  const inFlight = new Set();
  /** Deliveries the stop left mid-trip: live ones, whose reads the per-unit costs are measured on. */
  const leftLive = [];

  const fail = (what) => {
    if (w.failures.length < 20) w.failures.push(what);
  };

  // Online riders' phones, each on its own 5-second beat from a random start; more join at each
  // rider count measured.
  let pinging = 0;
  const pingUpTo = (count) => {
    for (; pinging < Math.min(count, riders.length); pinging++) {
      const rider = riders[pinging];
      free.push(rider);
      cancels.push(
        onSchedule(o.pingSeconds * 1000, Math.random() * o.pingSeconds * 1000, (due) => {
          void timed(w.stats, 'POST /rider/location', due, () => client.request('POST', '/rider/location', { token: rider.riderToken, body: rider.at, from: rider.from }), [204]);
        }, stopped),
      );
    }
  };

  /** A poller that runs while the delivery is in flight: the recipient's page, the partner's server. */
  const pollWhile = (delivery, everySeconds, endpoint, path, token, from) =>
    onSchedule(everySeconds * 1000, Math.random() * everySeconds * 1000, (due) => {
      if (delivery.done) return;
      void timed(w.stats, endpoint, due, () => client.request('GET', path, { token, from }));
    }, () => stopping || delivery.done);

  async function step(delivery, rider, action) {
    const id = delivery.id;
    const body =
      action !== 'deliver' ? undefined : delivery.method === 'photo' ? multipartPhoto() : { otp: await handoverCode(id) };
    const sentAt = performance.now();
    const window = w;
    const answer = await timed(window.stats, `POST /rider/deliveries/{id}/${action}`, sentAt, () =>
      client.request('POST', `/rider/deliveries/${id}/${action}`, { token: rider.riderToken, body, from: rider.from }),
    );
    if (answer.status !== 200) throw new Error(`${action}: ${answer.status} ${answer.text.slice(0, 200)}`);
    if (!window.stats.recording) return;
    window.webhookWaits.push(
      ctx.receiver.waitFor(id, STEP_EVENTS[action], 60_000).then((at) => {
        if (at === null) window.missing += 1;
        else {
          window.lags.push(at - sentAt);
          (window.lagsByEvent[STEP_EVENTS[action]] ??= []).push(at - sentAt);
        }
      }),
    );
  }

  /** The recipient's code, as the SMS outbox (the offline default) holds it; the rider asks for it at the door. */
  async function handoverCode(deliveryId) {
    for (let i = 0; i < 50; i++) {
      const { rows } = await ctx.db.query('select body from sms_outbox where delivery_id = $1 order by id desc limit 1', [deliveryId]);
      const code = /(\d{6})\s*$/.exec(rows[0]?.body ?? '')?.[1];
      if (code) return code;
      await sleep(200);
    }
    throw new Error(`no code was texted for ${deliveryId}`);
  }

  async function waitForOffer(delivery, rider) {
    const deadline = performance.now() + 120_000;
    while (!stopping && performance.now() < deadline) {
      const due = performance.now();
      const answer = await timed(w.stats, 'GET /rider/offers', due, () => client.request('GET', '/rider/offers', { token: rider.riderToken, from: rider.from }));
      if (answer.status === 200 && answer.json().some((offer) => offer.delivery_id === delivery.id)) return true;
      await sleep(o.offerPollSeconds * 1000);
    }
    return false;
  }

  /** Books one delivery next to a free rider and rides it to `delivered` in `tripMs`. */
  async function deliver(due, tripMs) {
    const rider = free.splice(Math.floor(Math.random() * free.length), 1)[0];
    if (!rider) {
      w.noRiderFree += 1;
      return;
    }
    rider.busy = true;
    const pickup = pointNear(rider.at, 0.3, ACCRA_BOUNDS);
    const dropoff = pointNear(pickup, 2 + Math.random() * 4, ACCRA_BOUNDS);
    const method = Math.random() < o.photoShare ? 'photo' : 'otp';
    const delivery = { id: null, method, done: false };
    const stopsPolls = [];
    try {
      const booked = await timed(
        w.stats,
        'POST /partner/deliveries',
        due,
        () =>
          client.request('POST', '/partner/deliveries', {
            token: ctx.seed.apiKey,
            headers: { 'Idempotency-Key': randomUUID() },
            body: { ...bookingBody(pickup, dropoff), pickup_address: 'Near the rider, Accra', dropoff_address: 'Across town, Accra', verification_method: method },
          }),
        [201],
      );
      if (booked.status !== 201) throw new Error(`booking: ${booked.status} ${booked.text.slice(0, 200)}`);
      delivery.id = booked.json().id;
      inFlight.add(delivery.id);
      delivery.page = loopbackAddress(riders.length + pages++, o.addresses);
      stopsPolls.push(pollWhile(delivery, o.trackSeconds, 'GET /track/{id}/public', `/track/${delivery.id}/public`, undefined, delivery.page));
      stopsPolls.push(pollWhile(delivery, o.partnerPollSeconds, 'GET /partner/deliveries/{id}', `/partner/deliveries/${delivery.id}`, ctx.seed.apiKey));
      const bookedAt = due;
      if (!(await waitForOffer(delivery, rider))) {
        if (!stopping) throw new Error(`no offer of ${delivery.id} reached its rider`);
        return;
      }
      await step(delivery, rider, 'accept');
      // The ride: to the pickup, a short wait there, then across town; the phone's pings follow.
      const at = (share) => sleep(Math.max(0, bookedAt + share * tripMs - performance.now()));
      await at(0.3);
      if (stopping) return;
      rider.at = pickup;
      await step(delivery, rider, 'pickup');
      await at(0.35);
      if (stopping) return;
      await step(delivery, rider, 'depart');
      rider.at = { lat: (pickup.lat + dropoff.lat) / 2, lng: (pickup.lng + dropoff.lng) / 2 };
      await at(1);
      if (stopping) return;
      rider.at = dropoff;
      await step(delivery, rider, 'deliver');
      if (w.stats.recording) w.completedIds.push(delivery.id);
    } catch (error) {
      if (!stopping) fail(error instanceof Error ? error.message : String(error));
    } finally {
      delivery.done = true;
      if (stopping && delivery.id) leftLive.push({ id: delivery.id, page: delivery.page });
      for (const stop of stopsPolls) stop();
      if (delivery.id) inFlight.delete(delivery.id);
      rider.busy = false;
      free.push(rider);
    }
  }

  // Beside the deliveries: partners quoting, and people looking places up on booking forms.
  const quoteBody = () => {
    const from = pointNear({ lat: 5.6, lng: -0.19 }, Math.random() * 8, ACCRA_BOUNDS);
    const to = pointNear(from, 2 + Math.random() * 6, ACCRA_BOUNDS);
    return { pickup_lat: from.lat, pickup_lng: from.lng, dropoff_lat: to.lat, dropoff_lng: to.lng };
  };
  const PLACES = ['Makola', 'Osu', 'Kotoka', 'Madina', 'Tema', 'Labadi', 'Achimota', 'Dansoman', 'Spintex', 'East Legon'];
  if (o.quotesPerSecond > 0) {
    cancels.push(onSchedule(1000 / o.quotesPerSecond, 0, (due) => {
      void timed(w.stats, 'POST /partner/quotes', due, () => client.request('POST', '/partner/quotes', { token: ctx.seed.apiKey, body: quoteBody() }));
    }, stopped));
  }
  if (o.placesPerSecond > 0) {
    cancels.push(onSchedule(1000 / o.placesPerSecond, 0, (due) => {
      const q = PLACES[Math.floor(Math.random() * PLACES.length)];
      const from = loopbackAddress(Math.floor(Math.random() * o.addresses), o.addresses);
      void timed(w.stats, 'GET /places/autocomplete', due, () => client.request('GET', `/places/autocomplete?q=${encodeURIComponent(q)}`, { from }));
    }, stopped));
  }

  pingUpTo(o.steps[0]);
  const trips = [];
  // The ramp: `inFlight` deliveries booked at the ramp rate, the k-th ending k / rate seconds after
  // the ramp, so that completions arrive at the steady rate from the first measured second.
  const rampSeconds = o.inFlight / o.rampPerSecond;
  const steadyTripMs = (o.inFlight / o.bookingsPerSecond) * 1000;
  let rampBooked = 0;
  const rampDone = new Promise((resolve) => {
    if (o.inFlight === 0) return resolve();
    const cancel = onSchedule(1000 / o.rampPerSecond, 0, (due) => {
      const k = rampBooked++;
      const tripMs = (rampSeconds + k / o.bookingsPerSecond - k / o.rampPerSecond) * 1000;
      trips.push(deliver(due, tripMs));
      if (rampBooked >= o.inFlight) {
        cancel();
        resolve();
      }
    }, stopped);
  });
  await rampDone;
  // Steady bookings, each with the full trip time.
  cancels.push(onSchedule(1000 / o.bookingsPerSecond, 0, (due) => trips.push(deliver(due, steadyTripMs)), stopped));

  const pids = { api: ctx.pids.api, worker: ctx.pids.worker, temporal: ctx.cpuRoots.temporal, postgres: ctx.cpuRoots.postgres };
  /** One measured window at `count` riders pinging, after `settleSeconds` at that load unrecorded. */
  async function measureWindow(count) {
    pingUpTo(count);
    await sleep(o.settleSeconds * 1000);
    w = newWindow();
    const memory = [];
    const liveHeap = [];
    const inFlightSamples = [];
    const statements = await resetStatementStats(ctx.db);
    const dbBefore = await databaseCounters(ctx.db);
    const workerBefore = await workerTotals(ctx.workerMetricsUrl);
    const busyBefore = machineBusySeconds();
    const run = await ctx.measured(async () => {
      w.stats.start();
      const started = performance.now();
      const sampleHeaps = async () => {
        if (ctx.inspectPorts) liveHeap.push({ at: performance.now(), mb: await liveHeaps(ctx.inspectPorts) });
      };
      while (performance.now() - started < o.seconds * 1000) {
        memory.push({ at: performance.now(), mb: memoryNow(pids) });
        await sampleHeaps();
        inFlightSamples.push(inFlight.size);
        await sleep(Math.min(10_000, Math.max(1000, (o.seconds * 1000) / 20)));
      }
      memory.push({ at: performance.now(), mb: memoryNow(pids) });
      await sampleHeaps();
      w.stats.stop();
      return {};
    });
    const dbAfter = await databaseCounters(ctx.db);
    const busyAfter = machineBusySeconds();
    const workerCache = stickyCacheBetween(workerBefore, await workerTotals(ctx.workerMetricsUrl));
    const seconds = (w.stats.to - w.stats.from) / 1000;
    const postgresStatements = statements ? await topStatements(ctx.db, seconds) : null;
    return { window: w, count, run, memory, liveHeap, inFlightSamples, dbBefore, dbAfter, seconds, busy: busyAfter - busyBefore, postgresStatements, workerCache };
  }

  const windows = [];
  for (const count of o.steps) {
    const measured = await measureWindow(count);
    windows.push(measured);
    // Past the rider count the stack keeps up with, more riders only say the same louder.
    if (!meetsTargets(measured, { besideSteps: true })) break;
  }
  stopping = true;
  for (const cancel of cancels) cancel();
  await Promise.all(windows.flatMap((m) => m.window.webhookWaits));
  await Promise.race([Promise.all(trips), sleep(30_000)]);
  const units = await unitCostsOf(ctx, client, riders.slice(0, pinging), leftLive);
  client.close();
  const results = [];
  for (const measured of windows) results.push(await windowResult(ctx, o, measured));
  const last = results.at(-1);
  last.unitCosts = units;
  return {
    name: `city: ${last.riders} riders, ${o.inFlight} in flight, ${o.bookingsPerSecond} bookings/s`,
    city: {
      ...last,
      steps: results.length > 1 ? results.map(({ memorySamples: _samples, liveHeapSamples: _heaps, ...step }) => step) : undefined,
      capacity: capacityOf(results),
      capacityBesideSteps: capacityOf(results, 'meetsTargetsBesideSteps'),
    },
    cpu: windows.at(-1).run.cpu,
    memory: windows.at(-1).run.memory,
    errors: last.errorCount,
  };
}

/**
 * The API's CPU per ping, per tracking poll and per partner read, each alone and beside its floor
 * in the same run: a bare node:http handler answering 204 for the ping, a bare Express + pg read
 * of the delivery's row for the reads. The reads are of deliveries the stop left mid-trip, live
 * ones with a rider and an ETA; the same phones and pages send them, from the same addresses.
 */
async function unitCostsOf(ctx, client, pinging, live) {
  if (pinging.length === 0) return null;
  // A few hundred callers, each sending several times: the cost of a request on an open connection.
  const callers = 200;
  const riders = pinging.slice(0, callers);
  const deliveries = live.length ? live.slice(0, callers) : [{ id: ctx.deliveredId, page: undefined }];
  const bare = httpClient(ctx.bareFloorUrl, { prefix: '' });
  const floor = httpClient(ctx.baselineUrl, { prefix: '' });
  const check = (expected) => (answer) => ({ bad: answer.status !== expected });
  const riderOf = (n) => riders[n % riders.length];
  const deliveryOf = (n) => deliveries[n % deliveries.length];
  const readFloor = (n) => floor.request('GET', `/deliveries/${deliveryOf(n).id}`).then(check(200));
  try {
    return await unitCosts(
      [
        {
          name: 'ping',
          floorName: 'node:http answering 204',
          api: (n) => client.request('POST', '/rider/location', { token: riderOf(n).riderToken, body: riderOf(n).at, from: riderOf(n).from }).then(check(204)),
          floor: (n) => bare.request('POST', '/location', { token: riderOf(n).riderToken, body: riderOf(n).at, from: riderOf(n).from }).then(check(204)),
        },
        {
          name: 'tracking poll',
          floorName: 'Express + pg reading the row',
          api: (n) => client.request('GET', `/track/${deliveryOf(n).id}/public`, { from: deliveryOf(n).page }).then(check(200)),
          floor: readFloor,
        },
        {
          name: 'partner read',
          floorName: 'Express + pg reading the row',
          api: (n) => client.request('GET', `/partner/deliveries/${deliveryOf(n).id}`, { token: ctx.seed.apiKey }).then(check(200)),
          floor: readFloor,
        },
      ],
      { api: ctx.pids.api, floor: ctx.cpuRoots.floorHttp },
      { warmup: callers },
    );
  } finally {
    bare.close();
    floor.close();
  }
}

/**
 * Whether a window met the city targets: every endpoint's p99 under 100 ms (a rider step's under
 * 250 ms) with no error, and webhook lag p99 under 1 s. `besideSteps` leaves out the rider steps'
 * latency (not their errors), which is the workflow update's on this Temporal.
 */
function meetsTargets({ window }, { besideSteps = false } = {}) {
  const endpoints = Object.entries(window.stats.summary());
  const lag = summary(window.lags);
  return (
    endpoints.every(([name, e]) => e.errors === 0 && ((besideSteps && isRiderStep(name)) || e.p99 < p99TargetOf(name))) &&
    window.failures.length === 0 &&
    window.missing === 0 &&
    window.noRiderFree === 0 &&
    (lag.p99 ?? 0) < CITY_TARGETS.webhookLagP99Ms
  );
}

/** The largest rider count whose window met the targets (or, with `key`, that reading of them), or null. */
function capacityOf(results, key = 'meetsTargets') {
  const passed = results.filter((r) => r[key]).map((r) => r.riders);
  return passed.length ? Math.max(...passed) : null;
}

/** What a window measured, as the results file and the report carry it. */
async function windowResult(ctx, o, { window: w, count, run, memory, liveHeap, inFlightSamples, dbBefore, dbAfter, seconds, busy, postgresStatements, workerCache }) {
  const completedInWindow = w.completedIds.length;
  // What Temporal keeps of a delivery: the history of a sample of those completed in the window.
  const { deliveryWorkflowId } = await ctx.tsImport('../domain/reference.ts');
  const histories = [];
  for (const id of w.completedIds.slice(0, 20)) {
    const described = await ctx.temporal.workflow.getHandle(deliveryWorkflowId(id)).describe().catch(() => null);
    if (described) histories.push(described.historyLength);
  }
  const perDelivery = (value) => (completedInWindow ? value / completedInWindow : null);
  const cores = run.cpu ?? {};
  const endpoints = w.stats.summary();
  return {
    riders: count,
    meetsTargets: meetsTargets({ window: w }),
    meetsTargetsBesideSteps: meetsTargets({ window: w }, { besideSteps: true }),
    settings: o,
    seconds,
    endpoints,
    webhookLag: summary(w.lags),
    webhookLagByEvent: Object.fromEntries(Object.entries(w.lagsByEvent).map(([event, values]) => [event, summary(values)])),
    webhooksMissing: w.missing,
    // The whole machine's busy cores over the window, the stack's and the load generator's
    // included: anything well above their sum was other work sharing the machine.
    machineBusyCores: busy / seconds,
    generatorSendLag: w.stats.sendLag(),
    completedInWindow,
    deliveriesPerSecond: completedInWindow / seconds,
    inFlight: { min: Math.min(...inFlightSamples), max: Math.max(...inFlightSamples), mean: inFlightSamples.reduce((a, b) => a + b, 0) / Math.max(1, inFlightSamples.length) },
    noRiderFree: w.noRiderFree,
    failures: w.failures,
    cpu: run.cpu,
    memoryTrend: memoryTrend(memory),
    memorySamples: samplesOf(memory),
    // With --live-heap: the API's and worker's live heap and external memory after a full collection.
    ...(liveHeap.length ? { liveHeapTrend: memoryTrend(liveHeap), liveHeapSamples: samplesOf(liveHeap) } : {}),
    perDelivery: {
      historyEvents: histories.length ? histories.reduce((a, b) => a + b, 0) / histories.length : null,
      temporalCpuMs: perDelivery((cores.temporal ?? 0) * seconds * 1000),
      workerCpuMs: perDelivery((cores.worker ?? 0) * seconds * 1000),
      // PostgreSQL serves the pings and polls too; these are its totals over the window, per delivery.
      postgresTransactions: perDelivery(dbAfter.transactions - dbBefore.transactions),
      postgresRowsWritten: perDelivery(dbAfter.rows_written - dbBefore.rows_written),
    },
    postgresStatements,
    // Whether the worker kept every delivery's workflow: a miss replays its whole history.
    workerCache,
    postgresPerSecond: {
      transactions: (dbAfter.transactions - dbBefore.transactions) / seconds,
      rowsWritten: (dbAfter.rows_written - dbBefore.rows_written) / seconds,
      rowsRead: (dbAfter.rows_read - dbBefore.rows_read) / seconds,
    },
    errorCount: Object.values(endpoints).reduce((sum, e) => sum + e.errors, 0) + w.missing + w.failures.length + w.noRiderFree,
  };
}
