import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { initOrm, type Orm } from '../../db/orm';
import { freePort } from '../helpers/free-port';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { book, bookingBody, registerAccount } from '../helpers/bookings';
import { deliveriesByIds, deliveryIdsOf } from '../helpers/db-deliveries';
import { debitsOf, ledgerOf } from '../helpers/db-payments';
import { webhookEventsOf } from '../helpers/db-webhooks';
import {
  describeStuck,
  sleep,
  spawnApi,
  spawnWorker,
  startTemporalServer,
  waitForHttp,
  waitForTemporal,
  WebhookReceiver,
  type ChildHandle,
} from './support';

const IN_FLIGHT = 10;

let orm: Orm | undefined;
let connection: Connection | undefined;
let apiProcess: ChildHandle | undefined;
let worker: ChildHandle | undefined;
let temporal: ChildHandle | undefined;
const receiver = new WebhookReceiver();
const dir = mkdtempSync(path.join(tmpdir(), 'temporal-fault-'));
afterAll(async () => {
  await worker?.stop('SIGKILL');
  await apiProcess?.stop('SIGKILL');
  await receiver.down();
  await connection?.close().catch(() => undefined);
  await orm?.close();
  await temporal?.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('the Temporal server stopped and restarted', () => {
  it('answers 503 unavailable meanwhile, books again after the restart, and loses nothing in flight', async () => {
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const dbFile = path.join(dir, 'temporal.db');
    temporal = startTemporalServer(port, dbFile);
    await waitForTemporal(port);
    // The API and the worker as their own processes, as deployed; the robo rider takes a step a
    // second, so every delivery is under way when the server stops.
    const env = { TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: `fault-${randomUUID()}`, ROBO_RIDER_STEP_SECONDS: '1', DISPATCH_TIMEOUT_SECONDS: '300' };
    const apiPort = await freePort();
    apiProcess = spawnApi(apiPort, env);
    worker = spawnWorker(env.TEMPORAL_TASK_QUEUE, env);
    orm = await initOrm(process.env.TEST_DATABASE_URL as string, 4);
    connection = Connection.lazy({ address });
    const temporalClient = new Client({ connection });
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    await waitForHttp(`${baseUrl}/healthz`);
    await receiver.up();

    const partner = await makePartner(orm);
    await registerAccount(baseUrl, partner.testKey);
    await registerAccount(baseUrl, partner.liveKey);
    const client = api(baseUrl, partner.testKey);
    // A live delivery with no rider near stays pending, so it can still be cancelled during the outage.
    const waiting = await book(baseUrl, partner.liveKey);
    expect((await client.put('/partner/webhook', { webhook_url: receiver.url })).status).toBe(200);
    const ids = (await Promise.all(Array.from({ length: IN_FLIGHT }, () => book(baseUrl, partner.testKey)))).map((b) => b.id);
    // Robo riders under way: wait for a parcel on the bike, which a cancel can no longer stop.
    const onTheBike = await eventually(async () => {
      const moving = (await deliveriesByIds(orm!, ids)).find((d) => !['pending', 'accepted'].includes(d.status));
      return moving?.id;
    }, 20_000, 'a parcel on the bike');

    const atStop = await deliveriesByIds(orm, ids);
    const before = {
      active: atStop.filter((d) => !['delivered', 'cancelled', 'expired'].includes(d.status)).length,
      unpaid: atStop.filter((d) => d.payment_status === 'pending').length,
    };
    await temporal.stop('SIGTERM');

    // While Temporal is down: bookings and cancels that need the workflow are 503 unavailable; a
    // cancel the record already refuses, and reads from Postgres, still answer.
    const rows = (await deliveryIdsOf(orm, partner.partnerId)).length;
    const started = Date.now();
    const refused = await client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'during-outage' });
    const refusedInMs = Date.now() - started;
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ error: { code: 'unavailable', message: expect.any(String), details: {} } });
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await deliveryIdsOf(orm, partner.partnerId)).toHaveLength(rows);
    const cancelStarted = Date.now();
    const cancel = await api(baseUrl, partner.liveKey).post(`/partner/deliveries/${waiting.id}/cancel`);
    const cancelInMs = Date.now() - cancelStarted;
    expect(cancel.status).toBe(503);
    expect(cancel.body.error.code).toBe('unavailable');
    const tooLate = await client.post(`/partner/deliveries/${onTheBike}/cancel`);
    expect(tooLate.status).toBe(400);
    expect(tooLate.body.error.details.status).toMatch(/^(picked_up|in_transit|delivered)$/);
    const read = await client.get(`/partner/deliveries/${ids[1]}`);
    expect(read.status).toBe(200);
    await sleep(3_000);

    temporal = startTemporalServer(port, dbFile);
    await waitForTemporal(port);
    const restartedAt = Date.now();
    // The same Idempotency-Key books now: a 503 never holds on to the key.
    const retried = await eventually(async () => {
      const res = await client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'during-outage' });
      return res.status === 201 ? res : undefined;
    }, 30_000, 'booking after the restart');
    const all = [...ids, retried.body.id as string];
    const bookedAfterMs = Date.now() - restartedAt;

    await eventually(async () => {
      const views = await Promise.all(all.map((id) => client.get(`/partner/deliveries/${id}`)));
      return views.every((v) => v.body.status === 'delivered' && v.body.payment_status === 'paid');
    }, 60_000, 'every delivery delivered and paid').catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await describeStuck(orm!, temporalClient, all)}`);
    });
    const settledAfterMs = Date.now() - restartedAt;
    const expected = await webhookEventsOf(orm, all);
    await eventually(async () => expected.every((e) => receiver.distinctEventIds().has(e.id)), 30_000, 'every webhook received');
    const received = expected.filter((e) => receiver.distinctEventIds().has(e.id)).length;
    const ledger = (await ledgerOf(orm, all)).length;
    const paid = (await debitsOf(orm, all)).filter((d) => d.state === 'paid').length;

    process.stdout.write(
      [
        'fault: Temporal dev server stopped and restarted',
        `  deliveries in flight at the stop: ${before.active} of ${IN_FLIGHT} (debits unconfirmed ${before.unpaid}); booked after the restart: 1`,
        `  during the outage: booking ${refused.status} ${refused.body.error.code} in ${refusedInMs} ms, cancel ${cancel.status} in ${cancelInMs} ms, reads 200`,
        `  after the restart: the same Idempotency-Key booked in ${bookedAfterMs} ms; everything delivered and paid in ${Math.round(settledAfterMs / 1000)} s`,
        `  webhook events expected ${expected.length}, received ${received}`,
        `  debits expected ${all.length}, made ${ledger} on the network, ${paid} paid`,
        `  worker process still running: ${worker.child.exitCode === null}`,
        '',
      ].join('\n'),
    );
    expect(expected).toHaveLength(all.length * 4);
    expect(received).toBe(expected.length);
    expect(ledger).toBe(all.length);
    expect(paid).toBe(all.length);
    expect(worker.child.exitCode).toBeNull();
  }, 180_000);
});
