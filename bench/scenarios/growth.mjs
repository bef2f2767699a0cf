// Cost as the data grows: each hot path at a fixed request rate on the almost empty database the
// bench starts with, then again once `bench/seed-growth.ts` has added months of traffic (a million
// deliveries by default), with the plan PostgreSQL chose for each path's statements. The issue's
// bar: each path's p99 after within 1.5× of its p99 before.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { untilQuiet } from '../lib/cpu.mjs';
import { ACCRA, bookingBody, sleep } from '../lib/client.mjs';
import { jsonLineOf } from '../lib/json-line.mjs';
import { summary } from '../lib/stats.mjs';

/**
 * The seeded riders' positions do not move while the check runs (tens of minutes): every one the
 * seed put online counts as fresh, so each run searches the same riders as production's filter
 * (RIDER_FRESH_SECONDS) would with live pings.
 */
const SEEDED_RIDERS_FRESH_SECONDS = 7 * 24 * 3600;

/** The bar the issue sets: p99 on the grown database at most this many times the p99 before. */
export const GROWTH_LIMIT = 1.5;

/** Tables that grow with traffic: a sequential scan or a large sort over one is a finding. */
const GROWING = [
  'deliveries', 'delivery_events', 'delivery_stops', 'webhook_events', 'rider_offers', 'debits', 'riders', 'partners', 'api_keys',
  'payment_methods', 'webhook_endpoints',
];

/** Jobs that live through a dispatch round and then into the rider's list of offers. */
const OFFERS_KEPT = 5;

/** Runs the seeding command; resolves with the JSON line it prints. */
function seed(ctx, databaseUrl, args) {
  return jsonLineOf(ctx.tsx, [path.join('bench', 'seed-growth.ts'), ...args], { cwd: ctx.root, env: { DATABASE_URL: databaseUrl } }, `seed-growth ${args.join(' ')}`);
}

/**
 * Open loop: call number i is due at start + i / rate, whether or not earlier ones were
 * answered, and its latency counts from when it was due, so a slower database shows in the
 * figures rather than slowing the load. The first `warmupSeconds` (a second, or the measured
 * time when that is shorter) are not counted.
 * `call(i)` resolves true when the answer was the expected one.
 */
async function atRate({ rate, seconds, warmupSeconds = Math.min(1, seconds) }, call) {
  const warmup = Math.round(rate * warmupSeconds);
  const total = warmup + Math.max(1, Math.round(rate * seconds));
  const latencies = [];
  // When each counted call was due (s into the run), so the slowest show whether a tail is one
  // stall (due within a second of each other) or spread over the run.
  const dueAt = [];
  const failures = {};
  let errors = 0;
  const pending = [];
  const start = performance.now() + 20;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(
      (async () => {
        let outcome;
        try {
          outcome = await call(i);
        } catch (error) {
          outcome = error instanceof Error ? error.message : String(error);
        }
        if (i < warmup) return;
        latencies.push(performance.now() - due);
        dueAt.push((due - start) / 1000);
        if (outcome !== true) {
          errors += 1;
          const why = String(outcome).slice(0, 120);
          failures[why] = (failures[why] ?? 0) + 1;
        }
      })(),
    );
  }
  await Promise.all(pending);
  const { count, p50, p90, p99, max } = summary(latencies);
  const slowest = latencies
    .map((ms, k) => ({ dueAtS: Math.round(dueAt[k] * 100) / 100, ms: Math.round(ms * 10) / 10 }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 10);
  return { rate, seconds, count, errors, ...(errors ? { failures } : {}), p50, p90, p99, max, slowest };
}

/**
 * One request to the API; true when it answered `expected`, else what it answered. `answered`
 * gets the expected answer's body.
 */
async function request(apiUrl, method, route, { token, body, expected, answered }) {
  const response = await fetch(`${apiUrl}/api/v1${route}`, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) return `${response.status} ${text.slice(0, 80)}`;
  answered?.(JSON.parse(text));
  return true;
}

/**
 * Cancels the bench's bookings through the API, a few at a time, so their workflows stop
 * dispatching: left waiting, each would run a round a minute for 15 minutes, a load the next
 * phase would carry and the one that made them did not. Resolves with how many were cancelled.
 */
async function cancelBookings(ctx, ids) {
  let cancelled = 0;
  const queue = [...ids];
  const canceller = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const outcome = await request(ctx.apiUrl, 'POST', `/partner/deliveries/${id}/cancel`, { token: ctx.seed.apiKey, expected: 200 });
      if (outcome === true) cancelled += 1;
    }
  };
  await Promise.all(Array.from({ length: 8 }, canceller));
  return cancelled;
}

/**
 * The plans of the statements the service's own db/ functions send, as PostgreSQL ran them:
 * auto_explain on the connection of an ORM of the bench's own reports each executed statement's
 * EXPLAIN (ANALYZE, BUFFERS) as a notice, with the values it ran with. So what is recorded is the
 * SQL of the code itself, not a copy that could drift from it. Writes run as one more request of
 * their path would (a position, a round of offers on a bench job), the booking's insert in a
 * transaction that is rolled back.
 */
async function explainer(initOrm, databaseUrl) {
  const orm = await initOrm(databaseUrl, 1);
  const pool = await orm.em.getConnection().getNativeClient();
  let captured = null;
  const ready = new WeakSet();
  // Every checkout, by the ORM or by db/pool-query.ts, goes through here; the settings are queued
  // before the borrower's first statement.
  pool.on('acquire', (client) => {
    if (ready.has(client)) return;
    ready.add(client);
    client.on('notice', (notice) => {
      if (captured && /plan:/.test(notice.message)) captured.push(notice.message.replace(/^duration: [\d.]+ ms\s+plan:\n/, ''));
    });
    client
      .query(
        "load 'auto_explain'; set auto_explain.log_min_duration = 0; set auto_explain.log_analyze = on; set auto_explain.log_buffers = on;" +
          " set auto_explain.log_timing = on; set auto_explain.log_level = notice",
      )
      .catch(() => undefined);
  });
  return {
    pool,
    em: () => orm.em.fork(),
    /** The plans of the statements `work` ran. */
    async plans(work) {
      captured = [];
      try {
        // auto_explain's notice comes before its statement's answer, so every plan is in by now.
        await work();
        if (captured.length === 0) throw new Error('no plan came back: auto_explain needs a superuser (LOAD)');
        return captured.map((plan) => ({ statement: statementOf(plan), plan }));
      } finally {
        captured = null;
      }
    },
    close: () => orm.close(),
  };
}

/** The statement's first line of SQL, for the tables: `select … from deliveries d where d.id = $1`. */
function statementOf(plan) {
  const text = /Query Text: ([\s\S]*?)(?:\nQuery Parameters:|\n[A-Z][a-z]+ .*\(cost=)/.exec(plan)?.[1] ?? '';
  return text.replace(/\s+/g, ' ').trim().slice(0, 160);
}

/**
 * What a plan shows that would not stay cheap as the tables grow: a sequential scan of a growing
 * table that read more than a handful of rows (a table of a few rows is scanned whatever its
 * indexes), or a sort of many rows.
 */
function findings(plan) {
  const out = [];
  const lines = plan.split('\n');
  for (const [i, line] of lines.entries()) {
    const scan = /Seq Scan on (\w+).*actual.* rows=([\d.]+) loops=(\d+)/.exec(line);
    if (scan && GROWING.includes(scan[1])) {
      const removed = Number(/Rows Removed by Filter: (\d+)/.exec(lines.slice(i + 1, i + 4).join('\n'))?.[1] ?? 0);
      const read = (Number(scan[2]) + removed) * Number(scan[3]);
      if (read > 1000) out.push(`sequential scan of ${scan[1]} (${Math.round(read)} rows)`);
    }
    const sort = /Sort {2}\(cost.*actual.* rows=([\d.]+) loops=(\d+)/.exec(line);
    if (sort && Number(sort[1]) > 1000) out.push(`sort of ${Math.round(Number(sort[1]))} rows`);
  }
  return out;
}

/** Rows the bench owns for the dispatch round: pending jobs at Makola, claimed (no workflow runs them, and the sweeper leaves them). */
async function pendingJobs(ctx, count) {
  const { rows } = await ctx.db.query(
    `with made as (
       insert into deliveries (id, partner_id, mode, reference, status, payment_status, payment_method_id, pickup_address, pickup_lat, pickup_lng,
         dropoff_address, dropoff_lat, dropoff_lng, package_size, recipient_name, recipient_phone, verification_method,
         base_fare, distance_m, distance_fee, service_fee, total_fare, workflow_claimed_at)
       select id, $1, 'live', 'DLV-' || upper(substr(replace(id::text, '-', ''), 1, 8)), 'pending', 'paid', $2, 'Makola Market, Accra', $3, $4,
         'Kotoka International Airport, Accra', $5, $6, 'small', 'Ama Serwaa Mensah', '+233241234567', 'none', 1000, 8860, 2215, 200, 3415, now()
       from (select gen_random_uuid() as id from generate_series(1, $7::int)) g
       returning id, created_at),
     trail as (insert into delivery_events (delivery_id, status, created_at) select id, 'pending', created_at from made)
     select id from made`,
    [ctx.seed.partnerId, ctx.seed.paymentMethodId, ACCRA.makola.lat, ACCRA.makola.lng, ACCRA.airport.lat, ACCRA.airport.lng, count],
  );
  return rows.map((row) => row.id);
}

/**
 * Brings the database to rest before a measurement: its new rows' statistics, a checkpoint (it
 * writes and syncs every page the seeding left dirty, so no checkpoint's flush of them falls on
 * the measured seconds), and a quiet stack. Returns how long each took, in seconds.
 */
async function settle(ctx) {
  const seconds = {};
  const timed = async (step, work) => {
    const from = performance.now();
    await work();
    seconds[step] = Math.round((performance.now() - from) / 100) / 10;
  };
  await timed('analyze', () => ctx.db.query('analyze'));
  // A checkpoint needs a superuser (or pg_checkpoint), as the bench's own PostgreSQL has.
  await timed('checkpoint', () => ctx.db.query('checkpoint').catch(() => undefined));
  await timed('quiet', () => untilQuiet(ctx.cpu, { maxSeconds: 120 }));
  return seconds;
}

/** The jobs end as the workflow would end them (expired, their offers withdrawn), so they load nothing after. */
async function endJobs(ctx, ids) {
  if (ids.length === 0) return;
  await ctx.db.query("update deliveries set status = 'expired', updated_at = now() where id = any($1::uuid[]) and status = 'pending'", [ids]);
  await ctx.db.query('update rider_offers set expires_at = now() where delivery_id = any($1::uuid[]) and expires_at > now()', [ids]);
}

/**
 * What the database holds: exact counts of what the seeding is checked against, the statistics'
 * row counts of the largest tables (counting those would read gigabytes), and the size on disk.
 */
async function census(ctx) {
  const { rows } = await ctx.db.query(`select
      (select count(*) from deliveries)::int as deliveries,
      (select count(*) from partners)::int as partners,
      (select count(*) from riders where not is_robo)::int as riders,
      (select count(*) from riders where online and not is_robo)::int as riders_online,
      (select count(*) from api_keys)::int as api_keys,
      (select json_object_agg(relname, reltuples::bigint) from pg_class
        where relname in ('delivery_events', 'webhook_events', 'rider_offers', 'debits', 'delivery_stops') and relkind = 'r') as estimated,
      pg_size_pretty(pg_database_size(current_database())) as size`);
  return rows[0];
}

export async function growthScenario(ctx) {
  const g = ctx.options.growth;
  if (g.rate <= 0 || g.bookingRate <= 0 || g.seconds <= 0) throw new Error('--growth-rate, --growth-booking-rate and --growth-seconds must be above 0');
  const databaseUrl = ctx.databaseUrl ?? ctx.db.options.connectionString;
  const { tsImport } = await import('tsx/esm/api');
  const { initOrm } = await tsImport('../../db/orm.ts', import.meta.url);
  const deliveries = await tsImport('../../db/deliveries.ts', import.meta.url);
  const tracking = await tsImport('../../db/tracking.ts', import.meta.url);
  const offers = await tsImport('../../db/offers.ts', import.meta.url);
  const riders = await tsImport('../../db/riders.ts', import.meta.url);
  const bookings = await tsImport('../../db/bookings.ts', import.meta.url);
  const paymentMethods = await tsImport('../../db/payment-methods.ts', import.meta.url);
  const unpaidBookings = await tsImport('../../db/unpaid-bookings.ts', import.meta.url);
  const reference = await tsImport('../../domain/reference.ts', import.meta.url);

  const { apiKey, partnerId } = ctx.seed;
  const mine = ctx.takeRiders(Math.min(5, ctx.seed.riders.length - 1));
  const tokens = mine.map((app) => ctx.seed.riders.find((r) => r.riderId === app.riderId));
  // Dispatch is called as the delivery workflow's activity calls it, on an ORM of the bench's own.
  const dispatchOrm = await initOrm(databaseUrl, 4);
  const explain = await explainer(initOrm, databaseUrl);
  const kept = [];

  try {
    // The bench partner's own history, so a deep page of its list has somewhere to go.
    const own = await seed(ctx, databaseUrl, ['--deliveries', String(g.own), '--partner', partnerId, '--riders', '0']);
    const { rows: ownRows } = await ctx.db.query(
      "select id from deliveries where partner_id = $1 and mode = 'live' and status = 'delivered' order by random()",
      [partnerId],
    );
    const ownIds = ownRows.map((row) => row.id);
    const listed = Number((await ctx.db.query("select count(*) from deliveries where partner_id = $1 and mode = 'live'", [partnerId])).rows[0].count);
    const deepOffset = Math.max(0, listed - 20);
    const perPhase = Math.round(g.rate * (g.seconds + Math.min(1, g.seconds)));

    const run = { rate: g.rate, seconds: g.seconds };
    /** Each path: its name, how it is called, and the db/ calls whose plans show its cost. */
    const paths = (phase) => {
      // Each read is of a delivery not read before (no answer kept), from this phase's slice.
      const slice = ownIds.slice(phase * perPhase, (phase + 1) * perPhase);
      const idAt = (i) => slice[i % slice.length] ?? ctx.deliveredId;
      const rider = (i) => tokens[i % tokens.length];
      let jobs = [];
      let offered = 0;
      const booked = [];
      return [
        {
          id: 'read',
          name: 'GET /partner/deliveries/{id}',
          call: (i) => request(ctx.apiUrl, 'GET', `/partner/deliveries/${idAt(i)}`, { token: apiKey, expected: 200 }),
          explain: async (em) => {
            await deliveries.versionWithLive(em, idAt(0));
            await deliveries.loadVersioned(em, idAt(0));
          },
        },
        {
          id: 'list',
          name: 'GET /partner/deliveries?limit=20&offset=0',
          call: () => request(ctx.apiUrl, 'GET', '/partner/deliveries?limit=20&offset=0', { token: apiKey, expected: 200 }),
          explain: async (em) => deliveries.loadParts(em, await deliveries.findForPartner(em, { partnerId, mode: 'live' }, { limit: 20, offset: 0 })),
        },
        {
          id: 'list-deep',
          name: `GET /partner/deliveries?limit=20&offset=${deepOffset}`,
          call: () => request(ctx.apiUrl, 'GET', `/partner/deliveries?limit=20&offset=${deepOffset}`, { token: apiKey, expected: 200 }),
          explain: async (em) =>
            deliveries.loadParts(em, await deliveries.findForPartner(em, { partnerId, mode: 'live' }, { limit: 20, offset: deepOffset })),
        },
        {
          id: 'track',
          name: 'GET /track/{id}/public',
          call: (i) => request(ctx.apiUrl, 'GET', `/track/${idAt(i)}/public`, { expected: 200 }),
          explain: async (em) => {
            await deliveries.versionWithLive(em, idAt(1));
            await tracking.publicView(em, idAt(1));
          },
        },
        {
          id: 'dispatch',
          name: 'dispatch: offerToRidersNear (3 km)',
          // A new job's first round, as the workflow's dispatch runs it: every call is for a job of its own.
          prepare: async () => {
            await endJobs(ctx, kept.splice(0));
            jobs = await pendingJobs(ctx, perPhase + 2);
          },
          call: async (i) => {
            const made = await offers.offerToRidersNear(dispatchOrm.em, {
              deliveryId: jobs[i],
              pickup: ACCRA.makola,
              radiusKm: 3,
              expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
              freshSeconds: SEEDED_RIDERS_FRESH_SECONDS,
            });
            offered += made;
            return made > 0 || 'offered to nobody';
          },
          explain: (em) =>
            offers.offerToRidersNear(em, {
              deliveryId: jobs[jobs.length - 1],
              pickup: ACCRA.makola,
              radiusKm: 3,
              expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
              freshSeconds: SEEDED_RIDERS_FRESH_SECONDS,
            }),
          finish: async () => {
            // A few stay open, for the riders' list of offers; the rest end as unanswered jobs do.
            kept.push(...jobs.slice(0, OFFERS_KEPT));
            await endJobs(ctx, jobs.slice(OFFERS_KEPT));
            return { offersPerCall: Math.round(offered / Math.max(1, perPhase)) };
          },
        },
        {
          id: 'offers',
          name: 'GET /rider/offers',
          call: (i) => request(ctx.apiUrl, 'GET', '/rider/offers', { token: rider(i).riderToken, expected: 200 }),
          explain: (em) => offers.openFor(em, rider(0).riderId),
        },
        {
          id: 'ping',
          name: 'POST /rider/location',
          // Riders stay at their stand, a few metres either way, so dispatch finds them there.
          call: (i) =>
            request(ctx.apiUrl, 'POST', '/rider/location', {
              token: rider(i).riderToken,
              body: { lat: rider(i).lat + ((i % 7) - 3) * 0.00001, lng: rider(i).lng },
              expected: 204,
            }),
          // The API writes the pings of the last few milliseconds together: here, one of each rider's.
          explain: (em) => riders.setPositions(em, new Map(tokens.map((r) => [r.riderId, { lat: r.lat, lng: r.lng }]))),
        },
        {
          id: 'booking',
          name: 'POST /partner/deliveries',
          // In Kumasi, far from every rider: the jobs wait and load the rest as little as they can,
          // and are cancelled once the path is measured.
          rate: g.bookingRate,
          call: () =>
            request(ctx.apiUrl, 'POST', '/partner/deliveries', {
              token: apiKey,
              body: bookingBody(ACCRA.kumasi, ACCRA.kumasiDrop),
              expected: 201,
              answered: (delivery) => booked.push(delivery.id),
            }),
          explain: async (em) => {
            await unpaidBookings.countUnpaid(em, { partnerId, mode: 'live' });
            const account = await paymentMethods.accountToDebit(em, { partnerId, mode: 'live' }, undefined);
            const client = await explain.pool.connect();
            try {
              await client.query('begin');
              await bookings.insert(client, explainedBooking(partnerId, account, reference.deliveryReference));
            } finally {
              await client.query('rollback');
              client.release();
            }
          },
          finish: async () => {
            const made = booked.splice(0);
            return { bookingsMade: made.length, bookingsCancelled: await cancelBookings(ctx, made) };
          },
        },
      ];
    };

    const phase = async (label, index) => {
      const measured = {};
      const plans = {};
      for (const p of paths(index)) {
        await p.prepare?.();
        const result = await ctx.measured(() => atRate({ ...run, rate: p.rate ?? run.rate }, p.call), `growth ${label} ${p.id}`);
        try {
          const statements = await explain.plans(() => p.explain(explain.em()));
          plans[p.id] = statements.map((s) => ({ ...s, findings: findings(s.plan) }));
        } catch (error) {
          plans[p.id] = [{ statement: '', plan: '', error: error instanceof Error ? error.message : String(error), findings: [] }];
        }
        // PostgreSQL's CPU a request: what the database spends on the path, which a busy neighbour on
        // a shared machine moves far less than it moves the latency tail.
        const dbMsPerRequest = result.cpu?.postgres === undefined ? null : (result.cpu.postgres * 1000) / (p.rate ?? run.rate);
        measured[p.id] = { name: p.name, ...result, dbMsPerRequest, ...(await p.finish?.()) };
      }
      return { measured, plans };
    };

    const counts = { start: await census(ctx) };
    const settled = { before: await settle(ctx) };
    const before = await phase('before', 0);
    counts.before = await census(ctx);
    const seeding = await seed(ctx, databaseUrl, ['--deliveries', String(g.deliveries), '--partners', String(g.partners), '--riders', String(g.riders)]);
    counts.after = await census(ctx);
    settled.after = await settle(ctx);
    const after = await phase('after', 1);

    const rows = Object.keys(before.measured).map((id) => {
      const b = before.measured[id];
      const a = after.measured[id];
      const ratio = b.p99 > 0 ? a.p99 / b.p99 : null;
      return {
        id,
        name: b.name,
        rate: b.rate,
        before: b,
        after: a,
        ratio,
        withinLimit: ratio !== null && ratio <= GROWTH_LIMIT,
        findings: [...new Set((after.plans[id] ?? []).flatMap((s) => s.findings))],
      };
    });
    return {
      name: 'Cost as the data grows',
      growth: {
        limit: GROWTH_LIMIT,
        asked: { deliveries: g.deliveries, partners: g.partners, riders: g.riders, own: g.own },
        own,
        seeding,
        settled,
        counts,
        deepOffset,
        paths: rows,
        plans: { before: before.plans, after: after.plans },
      },
    };
  } finally {
    await endJobs(ctx, kept).catch(() => undefined);
    ctx.returnRiders(mine);
    await explain.close();
    await dispatchOrm.close();
  }
}

/** A booking as the API writes it, for the plan of its insert (rolled back, never committed). */
function explainedBooking(partnerId, account, deliveryReference) {
  const id = crypto.randomUUID();
  const body = bookingBody(ACCRA.kumasi, ACCRA.kumasiDrop);
  return {
    id,
    partnerId,
    mode: 'live',
    reference: deliveryReference(id),
    paymentMethodId: account,
    pickupAddress: body.pickup_address,
    pickupLat: body.pickup_lat,
    pickupLng: body.pickup_lng,
    dropoffAddress: body.dropoff_address,
    dropoffLat: body.dropoff_lat,
    dropoffLng: body.dropoff_lng,
    packageSize: body.package_size,
    packageDescription: null,
    recipientName: body.recipient_name,
    recipientPhone: body.recipient_phone,
    verificationMethod: 'none',
    scheduledAt: null,
    baseFare: 1000,
    distanceMeters: 2900,
    distanceFee: 725,
    serviceFee: 200,
    totalFare: 1925,
    stops: [],
  };
}
