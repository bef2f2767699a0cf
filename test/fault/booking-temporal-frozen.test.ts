import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from '@temporalio/client';
import { createBookingSweepActivities } from '../../activities/booking-sweep';
import { createLogger } from '../../config/logger';
import { initOrm, type Orm } from '../../db/orm';
import { deliveryWorkflowId } from '../../domain/reference';
import { activityDeps } from '../../workers/activity-deps';
import { projectSchedules } from '../../workers/schedules';
import { installTemporalLogger } from '../../workers/temporal-logger';
import { deliveryWorkflow } from '../../workflows/delivery';
import { deliveryStartOptions, deliveryWorkflowInput, taskQueueFor } from '../../workflows/delivery/start';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy';
import { ACCRA, book, bookingBody, commitBookingRow, registerAccount } from '../helpers/bookings';
import { capturingLogger } from '../helpers/captured-logs';
import { freePort } from '../helpers/free-port';
import { api, eventually, type JsonResponse } from '../helpers/http';
import { makePartner, makeRider } from '../helpers/partners';
import { startTestStack, type TestStack } from '../helpers/stack';
import { deliveriesOf, deliveryIdsOf, deliveryRow, tracesOf } from '../helpers/db-deliveries';
import { idempotencyKeysOf } from '../helpers/db-requests';
import { connectTemporal, type TestTemporalConnection } from '../helpers/temporal-connection';
import { sleep } from './support';

// The API reaches Temporal through a relay the test can freeze (connections stay open, nothing
// comes back) and Postgres through one it can cut; the worker, and the booking sweeper's
// schedule, reach both directly. The API's pool is small enough that bookings holding a
// connection while they wait on Temporal would leave every other request waiting for one.
const CALL_TIMEOUT_S = 2;
const API_POOL = 4;
/** Bookings arrive one every this long while Temporal is frozen, and a few more once it thaws. */
const BOOKING_EVERY_MS = 100;
const BOOKINGS_AFTER_THAW = 3;
const MAX_BOOKINGS = 60;
/**
 * The freeze ends the moment a booking has been refused (its start outlived its deadline), so
 * some are refused and the later ones outlive it, however slow the machine; at the latest after
 * this long, when the test fails for want of a refusal.
 */
const FREEZE_LIMIT_MS = 20_000;
const SWEEP_EVERY_S = 2;
const ORPHAN_AFTER_S = 4;

let temporalProxy: TcpProxy;
let pgProxy: TcpProxy;
let apiOrm: Orm;
let apiConnection: TestTemporalConnection;
let apiTemporal: Client;
let stack: TestStack;
let workerMetricsUrl: string;
const apiLogs = capturingLogger('warn', 'api');
const workerLogs = capturingLogger('warn', 'worker');


beforeAll(async () => {
  // The worker's Prometheus endpoint, installed as workers/main.ts does, before the worker starts.
  const metricsPort = await freePort();
  installTemporalLogger(createLogger({ level: 'error', json: false, service: 'test' }), 'WARN', { metricsPort, metricsHost: '127.0.0.1' });
  workerMetricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;

  const [temporalHost, temporalPort] = (process.env.TEST_TEMPORAL_ADDRESS as string).split(':');
  temporalProxy = await startTcpProxy(temporalHost as string, Number(temporalPort));
  apiConnection = await connectTemporal(`127.0.0.1:${temporalProxy.port}`);
  apiTemporal = new Client({ connection: apiConnection.connection });
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  pgProxy = await startTcpProxy(url.hostname, Number(url.port));
  url.host = `127.0.0.1:${pgProxy.port}`;
  apiOrm = await initOrm(url.toString(), API_POOL);
  stack = await startTestStack({
    env: {
      TEMPORAL_CALL_TIMEOUT_SECONDS: String(CALL_TIMEOUT_S),
      BOOKING_SWEEP_INTERVAL_SECONDS: String(SWEEP_EVERY_S),
      BOOKING_ORPHAN_AFTER_SECONDS: String(ORPHAN_AFTER_S),
      // The probes below poll far faster than any client would; rate limits are rate-limit.test.ts's subject.
      RATE_LIMIT_PARTNER_PER_MINUTE: '1000000',
      RATE_LIMIT_PARTNER_TEST_PER_MINUTE: '1000000',
      RATE_LIMIT_RIDER_PER_MINUTE: '1000000',
      RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000',
    },
    appOverrides: { orm: apiOrm, temporal: apiTemporal, logger: apiLogs.logger },
    activityOverrides: { logger: workerLogs.logger },
    withSchedules: true,
  });
});

afterAll(async () => {
  await stack?.close();
  await apiConnection?.close();
  await apiOrm?.close();
  await temporalProxy?.close();
  await pgProxy?.close();
});

/** The log lines of one message, parsed. */
function logged(lines: string[], message: string): Record<string, unknown>[] {
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message === message);
}

/** The sum of one Prometheus sample's values over the series matching `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) total += Number(match[3]);
  }
  return total;
}

interface Probe {
  kind: 'read' | 'tracking' | 'ping';
  startedAt: number;
  ms: number;
  status: number;
}

/** Reads, tracking polls and rider pings, each kind one after another without pause, until stopped. */
function probe(calls: Record<Probe['kind'], () => Promise<{ status: number }>>) {
  const probes: Probe[] = [];
  let running = true;
  const loops = Object.entries(calls).map(async ([kind, call]) => {
    while (running) {
      const startedAt = performance.now();
      const { status } = await call().catch(() => ({ status: 0 }));
      probes.push({ kind: kind as Probe['kind'], startedAt, ms: performance.now() - startedAt, status });
      await sleep(10);
    }
  });
  return {
    async stop(): Promise<Probe[]> {
      running = false;
      await Promise.all(loops);
      return probes;
    },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

function figures(probes: Probe[]) {
  const byKind: Record<string, { n: number; failed: number; p50: number; p99: number; max: number }> = {};
  for (const kind of ['read', 'tracking', 'ping'] as const) {
    const mine = probes.filter((p) => p.kind === kind);
    const ms = mine.map((p) => p.ms).sort((a, b) => a - b);
    const round = (v: number) => Math.round(v * 10) / 10;
    byKind[kind] = {
      n: mine.length,
      failed: mine.filter((p) => p.status < 200 || p.status >= 300).length,
      p50: round(percentile(ms, 50)),
      p99: round(percentile(ms, 99)),
      max: round(ms[ms.length - 1] ?? NaN),
    };
  }
  return byKind;
}

/** A partner with a sandbox account, and its client on the test key. */
async function partnerReadyToBook() {
  const partner = await makePartner(stack.orm);
  const account = await registerAccount(stack.baseUrl, partner.testKey);
  return { partner, account, client: api(stack.baseUrl, partner.testKey) };
}

/** Waits for a round of the booking sweeper that started after now to finish. */
async function nextSweep(): Promise<void> {
  const [schedule] = projectSchedules(stack.settings);
  const handle = stack.temporal.schedule.getHandle(schedule?.scheduleId as string);
  const taken = (await handle.describe()).info.numActionsTaken;
  const workflowId = await eventually(async () => {
    const { info } = await handle.describe();
    return info.numActionsTaken > taken ? info.recentActions.at(-1)?.action.workflow.workflowId : undefined;
  }, 30_000, 'a round of the booking sweeper');
  await stack.temporal.workflow.getHandle(workflowId).result();
}

describe('bookings while Temporal is frozen', () => {
  it('keep reads, tracking and rider pings answering, and each ends refused with 503 or running, none stuck', async () => {
    const { partner, client } = await partnerReadyToBook();
    const existing = await book(stack.baseUrl, partner.testKey);
    // Far from the bookings' pickup, so the pings are all this rider does.
    const rider = await makeRider(stack.orm, { lat: 9.4034, lng: -0.8424 }, 'Abena Owusu');
    const riderClient = api(stack.baseUrl, rider.riderToken);
    const calls = {
      read: () => client.get(`/partner/deliveries/${existing.id}`),
      tracking: () => api(stack.baseUrl).get(`/track/${existing.id}/public`),
      ping: () => riderClient.post('/rider/location', { lat: 9.4034 + Math.random() / 1000, lng: -0.8424 }),
    };

    const warmUp = probe(calls);
    await sleep(500);
    await warmUp.stop();
    const beforeProbe = probe(calls);
    await sleep(3_000);
    const before = figures(await beforeProbe.stop());

    temporalProxy.freeze();
    const frozenAt = performance.now();
    const duringProbe = probe(calls);
    let thawed = false;
    let refusedOnce = () => undefined as void;
    const firstRefusal = new Promise<void>((resolve) => (refusedOnce = resolve));
    const sends: Promise<{ key: string; status: number; id: string | null; ms: number }>[] = [];
    const bookOne = async (i: number) => {
      const key = `frozen-${i}`;
      const sent = performance.now();
      const res = await client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': key });
      if (res.status === 503) refusedOnce();
      return { key, status: res.status, id: res.status === 201 ? (res.body.id as string) : null, ms: Math.round(performance.now() - sent) };
    };
    const sending = (async () => {
      let afterThaw = 0;
      for (let i = 0; i < MAX_BOOKINGS && afterThaw < BOOKINGS_AFTER_THAW; i++) {
        if (thawed) afterThaw += 1;
        sends.push(bookOne(i));
        await sleep(BOOKING_EVERY_MS);
      }
    })();
    await Promise.race([firstRefusal, sleep(FREEZE_LIMIT_MS)]);
    const thawedAt = performance.now();
    temporalProxy.thaw();
    thawed = true;
    await sending;
    const outcomes = await Promise.all(sends);
    const during = figures((await duringProbe.stop()).filter((p) => p.startedAt >= frozenAt && p.startedAt < thawedAt));

    const booked = outcomes.filter((o) => o.status === 201).map((o) => o.id as string);
    const refused = outcomes.filter((o) => o.status === 503);
    expect(booked.length + refused.length).toBe(outcomes.length);

    // Refused: nothing kept, and the key let go of, so the partner may send it again.
    const kept = (await deliveryIdsOf(stack.orm, partner.partnerId)).filter((id) => id !== existing.id);
    expect(kept.sort()).toEqual([...booked].sort());
    for (const { key } of refused) {
      await eventually(async () => (await idempotencyKeysOf(stack.orm, partner.partnerId)).every((k) => k.key !== key), 15_000, `${key} let go of`);
    }

    // Booked: its workflow claimed it and runs it to the end.
    for (const id of booked) {
      await eventually(async () => {
        const res = await client.get(`/partner/deliveries/${id}`);
        return res.body.status === 'delivered';
      }, 60_000, `${id} delivered`);
    }

    // A start that reached Temporal only after the API had withdrawn its booking ended at once, having done nothing.
    const lateStarts: string[] = [];
    for await (const execution of stack.temporal.workflow.list({ query: `WorkflowType = 'deliveryWorkflow' AND PartnerId = '${partner.partnerId}'` })) {
      if (execution.workflowId !== deliveryWorkflowId(existing.id) && !booked.some((id) => deliveryWorkflowId(id) === execution.workflowId)) {
        lateStarts.push(execution.workflowId);
      }
    }
    for (const workflowId of lateStarts) {
      const handle = stack.temporal.workflow.getHandle(workflowId);
      expect(await handle.result()).toMatchObject({ status: 'pending', paymentStatus: 'pending' });
      const events = (await handle.fetchHistory()).events ?? [];
      expect(events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [])).toEqual([]);
      const deliveryId = workflowId.replace(/^delivery-/, '');
      expect(await tracesOf(stack.orm, deliveryId)).toMatchObject({ sms_outbox: 0, rider_offers: 0 });
    }

    // None stuck: once the sweeper has been round, every booking of this partner has its workflow.
    await nextSweep();
    expect((await deliveriesOf(stack.orm, partner.partnerId)).filter((d) => !d.claimed)).toEqual([]);

    const apiMetrics = await (await fetch(`${stack.baseUrl}/metrics`)).text();
    const startFailures = ['withdrawn', 'claimed', 'kept'].map((outcome) => `${outcome} ${sample(apiMetrics, 'booking_start_failures_total', { outcome })}`);
    console.log(
      [
        `Temporal frozen for ${Math.round(thawedAt - frozenAt)} ms between the API and Temporal; ${outcomes.length} bookings, one every ${BOOKING_EVERY_MS} ms; ` +
          `TEMPORAL_CALL_TIMEOUT_SECONDS=${CALL_TIMEOUT_S}, API pool ${API_POOL}`,
        `bookings: ${booked.length} × 201 (running, delivered), ${refused.length} × 503 (withdrawn, key released); ` +
          `late starts that found their booking withdrawn and ended doing nothing: ${lateStarts.length}`,
        `booking_start_failures_total: ${startFailures.join(', ')}`,
        `booking answer times (ms): ${outcomes.map((o) => `${o.status}/${o.ms}`).join(' ')}`,
        'latency (ms)      before: n  p50  p99  max      during freeze: n  p50  p99  max  failed',
        ...(['read', 'tracking', 'ping'] as const).map((kind) => {
          const b = before[kind]!;
          const d = during[kind]!;
          return `${kind.padEnd(16)} ${[b.n, b.p50, b.p99, b.max].join('  ')}      ${[d.n, d.p50, d.p99, d.max, d.failed].join('  ')}`;
        }),
      ].join('\n'),
    );

    expect(refused.length).toBeGreaterThan(0);
    expect(booked.length).toBeGreaterThan(0);
    for (const kind of ['read', 'tracking', 'ping'] as const) {
      expect([kind, during[kind]?.failed]).toEqual([kind, 0]);
      expect(during[kind]?.n).toBeGreaterThan(10);
      // Generous for a loaded two-core machine; a booking holding a connection for the whole
      // deadline would put a reader behind it for seconds.
      expect(during[kind]?.p99).toBeLessThan(1_000);
    }
  }, 120_000);

  it('answers repeats of a booking still starting with what the first finally answered, never a 201 for one then withdrawn', async () => {
    const { partner, client } = await partnerReadyToBook();
    const headers = { 'Idempotency-Key': 'repeated-while-frozen' };
    const keyStatements = pgProxy.count(/idempotency_keys/g);

    temporalProxy.freeze();
    let first: JsonResponse<{ id: string }>;
    let repeats: JsonResponse<{ id: string }>[];
    let statementsWhileWaiting: number;
    let withdrawn: string;
    try {
      const firstAnswer = client.post('/partner/deliveries', bookingBody(), headers);
      // Its row and key are committed, bound to each other, before the start is asked for.
      [withdrawn] = (await eventually(async () => {
        const found = await deliveryIdsOf(stack.orm, partner.partnerId);
        return found.length > 0 ? found : undefined;
      }, 10_000, 'the booking row')) as [string];
      const before = keyStatements();
      const repeatAnswers = Promise.all(Array.from({ length: 20 }, () => client.post('/partner/deliveries', bookingBody(), headers)));
      first = await firstAnswer;
      statementsWhileWaiting = keyStatements() - before;
      temporalProxy.thaw();
      repeats = await repeatAnswers;
    } finally {
      temporalProxy.thaw();
    }

    // The first gave up on the frozen start and withdrew its booking; nobody is told of it.
    expect(first.status).toBe(503);
    expect((await client.get(`/partner/deliveries/${withdrawn}`)).status).toBe(404);
    // The repeats waited for it, then one booked again under the key and the rest were given that.
    expect(repeats.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = new Set(repeats.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const [rebooked] = [...ids] as [string];
    expect(rebooked).not.toBe(withdrawn);
    await eventually(async () => (await client.get(`/partner/deliveries/${rebooked}`)).body.status === 'delivered', 60_000, 'the booking made by a repeat to be delivered');
    // Twenty repeats waiting about two seconds: their first looks, and a few shared ones, not one each every 50 ms.
    console.log(`statements on idempotency_keys while 20 repeats waited: ${statementsWhileWaiting}`);
    expect(statementsWhileWaiting).toBeLessThan(200);
  }, 120_000);

  it('keeps a booking it could not withdraw when Postgres went too, and the sweeper starts its workflow', async () => {
    const { partner, client } = await partnerReadyToBook();
    const headers = { 'Idempotency-Key': 'kept-when-postgres-went-too' };

    temporalProxy.freeze();
    const answer = client.post('/partner/deliveries', bookingBody(), headers);
    try {
      // The row is committed before the start is asked for; then Postgres goes away from the API.
      const [rowId] = await eventually(
        async () => {
          const found = await deliveryIdsOf(stack.orm, partner.partnerId);
          return found.length > 0 ? found : undefined;
        },
        10_000,
        'the booking row',
      );
      await pgProxy.cut();
      await eventually(async () => logged(apiLogs.lines, 'Booking kept after its workflow failed to start').some((l) => l.deliveryId === rowId), 15_000, 'the withdrawal to fail');
      await pgProxy.restore();
      expect((await answer).status).toBe(503);
    } finally {
      await pgProxy.restore();
      // The frozen start is dropped with its connection: it never reaches Temporal.
      await temporalProxy.cut();
      temporalProxy.thaw();
      await temporalProxy.restore();
    }
    const [kept] = await deliveryIdsOf(stack.orm, partner.partnerId);
    const id = kept as string;
    expect(await deliveryRow(stack.orm, id)).toMatchObject({ claimed: false });

    const done = await eventually(async () => {
      const res = await client.get(`/partner/deliveries/${id}`);
      return res.body.status === 'delivered' && res.body.payment_status === 'paid' ? res.body : undefined;
    }, 60_000, 'the sweeper to start it and the robo rider to deliver it');
    expect(done.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);

    const found = logged(workerLogs.lines, 'Orphaned booking found').filter((l) => l.deliveryId === id);
    expect(found).toEqual([expect.objectContaining({ level: 'warn', deliveryId: id, partnerId: partner.partnerId, mode: 'test', outcome: 'started' })]);
    expect(found[0]?.ageSeconds).toBeGreaterThanOrEqual(ORPHAN_AFTER_S);
    const worker = await (await fetch(workerMetricsUrl)).text();
    expect(sample(worker, 'booking_orphans_found_total', { outcome: 'started' })).toBeGreaterThanOrEqual(1);
    const apiMetrics = await (await fetch(`${stack.baseUrl}/metrics`)).text();
    expect(sample(apiMetrics, 'booking_start_failures_total', { outcome: 'kept' })).toBe(1);

    // The partner's retry under the same key is answered with the booking that was kept.
    const repeat = await client.post('/partner/deliveries', bookingBody(), headers);
    expect(repeat.status).toBe(201);
    expect(repeat.body.id).toBe(id);
  }, 120_000);
});

describe('the booking sweeper', () => {
  it('claims a booking for an open run that never claimed it, and starts anew one whose run closed without claiming it', async () => {
    const { partner, account } = await partnerReadyToBook();
    const owner = { partnerId: partner.partnerId, mode: 'test' as const, paymentMethodId: account.id };
    const open = await commitBookingRow(stack.orm, owner);
    const closed = await commitBookingRow(stack.orm, owner);
    // Runs on a task queue no worker polls never reach their first step, as a run started before
    // claims were kept is past it.
    const idleQueue = `idle-${randomUUID()}`;
    const startIdle = (id: string) => {
      const input = deliveryWorkflowInput(
        { id, partnerId: partner.partnerId, mode: 'test', reference: 'DLV-IDLE', pickup: ACCRA.makola, stops: [], dropoff: ACCRA.airport, verificationMethod: 'none', scheduledAt: null, sandboxRider: 'robo' },
        stack.settings,
      );
      return stack.temporal.workflow.start(deliveryWorkflow, deliveryStartOptions(input, idleQueue));
    };
    const openRun = await startIdle(open);
    await (await startIdle(closed)).terminate('closed before its first step');

    try {
      const { settings, orm, temporal, deps } = stack;
      const { sweepOrphanedBookings } = createBookingSweepActivities(
        activityDeps({ settings: { ...settings, bookingOrphanAfterSeconds: 1 }, orm, temporal, logger: workerLogs.logger, gateways: deps.gateways }),
      );
      await sleep(1_100);
      await sweepOrphanedBookings({ taskQueue: settings.temporalTaskQueue });

      // Claimed by the sweeper for the open run at once; by the new run, as its first step, for the other.
      expect((await deliveryRow(stack.orm, open))?.claimed).toBe(true);
      await eventually(async () => (await deliveryRow(stack.orm, closed))?.claimed === true, 15_000, 'the new run to claim it');
      const outcomes = (id: string) => logged(workerLogs.lines, 'Orphaned booking found').filter((l) => l.deliveryId === id).map((l) => l.outcome);
      expect(outcomes(open)).toEqual(['already_running']);
      expect(outcomes(closed)).toEqual(['started']);
      // The open run is left as it is; the closed one's place is taken by a run on its mode's queue.
      expect((await openRun.describe()).status.name).toBe('RUNNING');
      const restarted = await stack.temporal.workflow.getHandle(deliveryWorkflowId(closed)).describe();
      expect(restarted.taskQueue).toBe(taskQueueFor(stack.settings.temporalTaskQueue, 'test'));
      await eventually(async () => (await api(stack.baseUrl, partner.testKey).get(`/partner/deliveries/${closed}`)).body.status === 'delivered', 60_000, 'the restarted run to deliver it');
    } finally {
      await openRun.terminate('test over');
    }
  }, 90_000);
});
