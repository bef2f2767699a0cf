import { rmSync } from 'node:fs';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { initOrm, type Orm } from '../../db/orm';
import { signatureHeader } from '../../domain/webhook-signature';
import { eventNameFor } from '../../domain/lifecycle';
import { api, eventually } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { makePartner } from '../helpers/partners';
import { FAST_TIMINGS } from '../helpers/stack';
import { startTestReceiver, type Arrival, type TestReceiver } from '../helpers/webhook-test-receiver';
import { startTopology, type Topology } from '../helpers/topology';
import { deliveriesByIds, statusTally } from '../helpers/db-deliveries';
import { debitsOf, ledgerOf } from '../helpers/db-payments';
import { webhookEventsOf } from '../helpers/db-webhooks';
import { sleep } from '../fault/support';

/**
 * The service as deployed: the real Temporal server on PostgreSQL, two workers, two APIs behind
 * HAProxy (scripts/lib/topology.mjs, what `npm run topology` runs). Test-mode deliveries are
 * driven by robo riders, so every delivery finishes on its own; the test only books, breaks
 * things and checks what the partner saw. Timings are configurable (TOPOLOGY_*), so a slower
 * machine can give the deliveries more room without editing the test.
 */
const IN_FLIGHT = Number(process.env.TOPOLOGY_DELIVERIES ?? 30);
/** A robo rider's step: each delivery takes about four of them, so they are still on the road at the faults. */
const ROBO_STEP_SECONDS = process.env.TOPOLOGY_ROBO_STEP_SECONDS ?? '2';
/** How long every delivery and every webhook may take to settle after the last fault. */
const SETTLE_MS = Number(process.env.TOPOLOGY_SETTLE_SECONDS ?? 120) * 1000;
const CONTRACT_STATUSES = ['accepted', 'picked_up', 'in_transit', 'delivered'] as const;
const FINAL = ['delivered', 'cancelled', 'expired'];

const run = `${process.pid}`;
const dataDir = path.resolve(__dirname, '../../.data/test', `topology-${run}`);
/** The logs stay behind (named in the failure) unless every test passed. */
let passed = 0;
const names = { app: `topology_app_${run}`, temporal: `topology_temporal_${run}`, visibility: `topology_visibility_${run}` };
let topology: Topology | undefined;
let orm: Orm | undefined;
let receiver: TestReceiver | undefined;
/** The partner's background reads; a failing test stops them in afterAll. */
let reading = false;

/** The server of `url` with another database name. */
function onServer(url: string, database: string): string {
  const at = new URL(url);
  at.pathname = `/${database}`;
  return at.toString();
}

beforeAll(async () => {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('Missing TEST_DATABASE_URL: run the topology tests through `npm test -- test/topology`.');
  topology = await startTopology({
    dataDir,
    databaseUrl: base,
    appDatabase: names.app,
    temporalDatabases: { temporal: names.temporal, visibility: names.visibility },
    workflowBundle: process.env.WORKFLOW_BUNDLE,
    compiledDir: process.env.TEST_COMPILED_DIR,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      ...FAST_TIMINGS,
      ROBO_RIDER_STEP_SECONDS: ROBO_STEP_SECONDS,
      SANDBOX_CONFIRM_MS: '1500',
      DISPATCH_TIMEOUT_SECONDS: '600',
      // The API gives up on Temporal after this long and answers 503; a restart takes a few seconds.
      TEMPORAL_CALL_TIMEOUT_SECONDS: '10',
      // Every request comes from one address (HAProxy's view of this test) and one partner, polling.
      RATE_LIMIT_PARTNER_PER_MINUTE: '1000000',
      RATE_LIMIT_PARTNER_TEST_PER_MINUTE: '1000000',
      RATE_LIMIT_PARTNER_IP_PER_MINUTE: '1000000',
    },
  });
  orm = await initOrm(topology.info.databaseUrl, 4);
  receiver = await startTestReceiver();
}, 240_000);

afterAll(async () => {
  reading = false;
  await receiver?.close();
  await orm?.close();
  await topology?.stop();
  if (passed === 2) rmSync(dataDir, { recursive: true, force: true });
  // Databases of this run only; a DATABASE_URL server keeps nothing behind.
  const base = process.env.TEST_DATABASE_URL;
  if (!base) return;
  const client = new PgClient({ connectionString: onServer(base, 'postgres') });
  await client.connect();
  try {
    for (const name of Object.values(names)) await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}, 60_000);

/** Every arrival's signature, checked against the contract's own signing function. */
function signedByService(arrival: Arrival, secret: string): boolean {
  return arrival.headers['x-service-signature'] === signatureHeader(secret, arrival.raw.toString('utf8'));
}

describe('the production topology: real Temporal on PostgreSQL, two workers, two APIs behind HAProxy', () => {
  it('routes only to ready API processes, and runs a delivery through its whole lifecycle', async () => {
    const { info } = topology!;
    expect(info.apis).toHaveLength(2);
    expect(info.workers).toHaveLength(2);
    // HAProxy's own /readyz checks have both API processes in rotation.
    expect(info.balancer).toEqual({ 'api-1': 'UP', 'api-2': 'UP' });

    const partner = await makePartner(orm!);
    await registerAccount(info.baseUrl, partner.testKey);
    const secret = await receiver!.subscribe(info.baseUrl, partner.testKey);
    const created = await book(info.baseUrl, partner.testKey);
    const client = api(info.baseUrl, partner.testKey);
    const done = await eventually(async () => {
      const res = await client.get(`/partner/deliveries/${created.id}`);
      return res.body.status === 'delivered' && res.body.payment_status === 'paid' ? res.body : undefined;
    }, 60_000, 'the delivery delivered and paid');
    expect(done.events.map((e: { status: string }) => e.status)).toEqual(['pending', ...CONTRACT_STATUSES]);
    await eventually(async () => receiver!.arrivalsFor(created.id).length >= CONTRACT_STATUSES.length, 30_000, 'every webhook');
    const arrivals = receiver!.arrivalsFor(created.id);
    expect(arrivals.every((a) => signedByService(a, secret))).toBe(true);
    expect(arrivals.map((a) => a.body.event).sort()).toEqual(CONTRACT_STATUSES.map((status) => eventNameFor(status)).sort());
    passed += 1;
  }, 120_000);

  it(`finishes ${IN_FLIGHT} deliveries in flight through a worker and an API killed (SIGKILL) and a Temporal restart`, async () => {
    const { info } = topology!;
    const started = Date.now();
    const say = (what: string) => process.stdout.write(`  [${((Date.now() - started) / 1000).toFixed(1)} s] ${what}\n`);
    const partner = await makePartner(orm!, 'Topology Shop');
    await registerAccount(info.baseUrl, partner.testKey);
    const secret = await receiver!.subscribe(info.baseUrl, partner.testKey);
    const client = api(info.baseUrl, partner.testKey);

    const ids = (await Promise.all(Array.from({ length: IN_FLIGHT }, () => book(info.baseUrl, partner.testKey)))).map((b) => b.id);
    say(`${ids.length} deliveries booked through HAProxy`);

    // The partner keeps reading through the balancer all along, as a dashboard or a poller would.
    const reads = { ok: 0, failed: 0, statuses: new Map<number, number>() };
    reading = true;
    const poller = (async () => {
      for (let i = 0; reading; i++) {
        const res = await client.get(`/partner/deliveries/${ids[i % ids.length]}`).catch(() => ({ status: 0 }));
        if (res.status === 200) reads.ok += 1;
        else {
          reads.failed += 1;
          reads.statuses.set(res.status, (reads.statuses.get(res.status) ?? 0) + 1);
        }
        await sleep(100);
      }
    })();

    const inFlight = async () => (await deliveriesByIds(orm!, ids)).filter((d) => !FINAL.includes(d.status) || d.payment_status === 'pending').length;
    // Riders on the road, nothing finished yet: then the first faults.
    await eventually(async () => (await deliveriesByIds(orm!, ids)).filter((d) => d.status !== 'pending').length >= 5, 60_000, 'riders under way');
    const atKill = await inFlight();
    const worker = await topology!.kill('worker-1', 'SIGKILL');
    const apiProcess = await topology!.kill('api-1', 'SIGKILL');
    const killedAt = Date.now() - started;
    say(`worker-1 (pid ${worker.pid}) and api-1 (pid ${apiProcess.pid}) killed with SIGKILL, ${atKill} of ${IN_FLIGHT} in flight`);
    // Two failed /readyz checks a second apart take it out of rotation.
    const outAfterMs = await eventually(async () => {
      const { balancer } = await topology!.describe();
      return balancer['api-1']?.startsWith('DOWN') ? Date.now() - started : undefined;
    }, 15_000, 'HAProxy to take api-1 out');
    say(`HAProxy marked api-1 DOWN`);

    await sleep(3_000);
    const atRestart = await inFlight();
    const restart = await topology!.restartTemporal(
      (process.env.TOPOLOGY_TEMPORAL_SIGNAL as NodeJS.Signals | undefined) ?? 'SIGKILL',
      Number(process.env.TOPOLOGY_TEMPORAL_DOWN_MS ?? 2_000),
    );
    say(`Temporal server restarted (pid ${restart.before} → ${restart.after}, ${restart.tookMs} ms), ${atRestart} in flight`);

    await eventually(async () => (await inFlight()) === 0, SETTLE_MS, 'every delivery settled').catch(async (error: Error) => {
      throw new Error(`${error.message}: ${(await statusTally(orm!, ids)).join(', ')}; logs in ${info.logDir}`);
    });
    say('every delivery settled');

    // What the contract promises: one callback per status change after pending, for every delivery.
    const expected = ids.flatMap((id) => CONTRACT_STATUSES.map((status) => `${id}:${status}`));
    const receivedKeys = () => new Set(receiver!.arrivals.filter((a) => ids.includes(a.body?.delivery_id)).map((a) => `${a.body.delivery_id}:${a.body.status}`));
    await eventually(async () => expected.every((key) => receivedKeys().has(key)), 60_000, 'every webhook received').catch((error: Error) => {
      const missing = expected.filter((key) => !receivedKeys().has(key));
      throw new Error(`${error.message}: ${missing.length} missing, e.g. ${missing.slice(0, 3).join(', ')}`);
    });
    reading = false;
    await poller;

    const arrivals = receiver!.arrivals.filter((a) => ids.includes(a.body?.delivery_id));
    const badlySigned = arrivals.filter((a) => !signedByService(a, secret));
    const recorded = await webhookEventsOf(orm!, ids);
    const eventIds = new Set(arrivals.map((a) => String(a.headers['x-service-event-id'])));
    const views = await Promise.all(ids.map((id) => client.get(`/partner/deliveries/${id}`)));
    const debits = await debitsOf(orm!, ids);
    const debitRows = debits.length;
    const paidDebits = debits.filter((d) => d.state === 'paid').length;
    const ledger = (await ledgerOf(orm!, ids)).length;
    const finished = views.filter((v) => v.body.status === 'delivered' && v.body.payment_status === 'paid').length;
    const after = await topology!.describe();

    console.log(
      [
        'topology fault run: real Temporal server on PostgreSQL, 2 workers, 2 APIs behind HAProxy',
        `  deliveries in flight: ${atKill} of ${IN_FLIGHT} at the SIGKILL of worker-1 and api-1, ${atRestart} at the Temporal restart (${restart.tookMs} ms)`,
        `  deliveries finished (delivered and paid): ${finished} of ${IN_FLIGHT}, ${((Date.now() - started) / 1000).toFixed(1)} s after booking`,
        `  webhooks expected ${expected.length}, received ${receivedKeys().size} (${arrivals.length} requests, duplicates included), ` +
          `${arrivals.length - badlySigned.length} with a valid signature, ${recorded.length} events recorded`,
        `  debits: ${debitRows} recorded, ${paidDebits} paid, ${ledger} on the sandbox network (one per delivery expected)`,
        `  partner reads through HAProxy during the faults: ${reads.ok} answered 200, ${reads.failed} not; api-1 out of rotation ${((outAfterMs - killedAt) / 1000).toFixed(1)} s after its kill` +
          (reads.failed ? ` (${[...reads.statuses].map(([status, n]) => `${n} × ${status}`).join(', ')})` : ''),
        `  processes now: ${[...after.apis, ...after.workers].map((p) => `${p.name} ${p.running ? 'running' : 'down'}`).join(', ')}`,
      ].join('\n'),
    );

    // The faults hit deliveries under way, not a finished batch.
    expect(atKill).toBeGreaterThan(0);
    expect(atRestart).toBeGreaterThan(0);
    expect(finished).toBe(IN_FLIGHT);
    for (const view of views) expect(view.body.events.map((e: { status: string }) => e.status)).toEqual(['pending', ...CONTRACT_STATUSES]);
    expect(receivedKeys().size).toBe(expected.length);
    expect(badlySigned).toHaveLength(0);
    // Every event the service recorded reached the partner, and nothing it did not record.
    expect(recorded).toHaveLength(expected.length);
    expect(recorded.every((row) => eventIds.has(row.id))).toBe(true);
    expect(debitRows).toBe(IN_FLIGHT);
    expect(paidDebits).toBe(IN_FLIGHT);
    // Every partner read through HAProxy was answered, the ones api-1 was killed under included:
    // HAProxy sent those to api-2 (retry-on, option redispatch).
    expect([...reads.statuses]).toEqual([]);
    expect(reads.failed).toBe(0);
    expect(reads.ok).toBeGreaterThan(50);
    // The sandbox network keeps one transaction per reference (the delivery id), and a repeated
    // request for a reference finds the one it has: one row per delivery is one debit each.
    expect(ledger).toBe(IN_FLIGHT);
    // The survivors carried the load: the killed processes stayed down.
    expect(after.apis.filter((p) => p.running)).toHaveLength(1);
    expect(after.workers.filter((p) => p.running)).toHaveLength(1);
    expect(after.balancer).toEqual({ 'api-1': expect.stringMatching(/^DOWN/), 'api-2': 'UP' });
    passed += 1;
  }, 360_000);
});
