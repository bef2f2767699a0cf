import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { initOrm, type Orm } from '../../db/orm';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { bookingBody, registerAccount } from '../helpers/bookings';
import {
  count,
  describeStuck,
  dropConnections,
  freePort,
  sleep,
  spawnApi,
  spawnWorker,
  waitForHttp,
  WebhookReceiver,
  type ChildHandle,
} from './support';

const DELIVERIES = 10;
const CHAOS_MS = 6_000;

let orm: Orm | undefined;
let connection: Connection | undefined;
const children: ChildHandle[] = [];
const receiver = new WebhookReceiver();
afterAll(async () => {
  for (const child of children) await child.stop('SIGKILL');
  await receiver.down();
  await connection?.close().catch(() => undefined);
  await orm?.close();
});

describe('PostgreSQL connections dropped under the API and the worker', () => {
  it('retries its way through: every booking told 201 is delivered, with no event or debit twice', async () => {
    // Every connection the two processes open carries this name, so only theirs are dropped.
    const appName = `fault-pg-${randomUUID()}`;
    const env = { PGAPPNAME: appName, TEMPORAL_TASK_QUEUE: `fault-${randomUUID()}`, ROBO_RIDER_STEP_SECONDS: '0.3' };
    const apiPort = await freePort();
    children.push(spawnApi(apiPort, env), spawnWorker(env.TEMPORAL_TASK_QUEUE, env));
    orm = await initOrm(process.env.TEST_DATABASE_URL as string, 4);
    connection = Connection.lazy({ address: process.env.TEST_TEMPORAL_ADDRESS as string });
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    await waitForHttp(`${baseUrl}/healthz`);
    await receiver.up();

    const partner = await makePartner(orm);
    await registerAccount(baseUrl, partner.testKey);
    const client = api(baseUrl, partner.testKey);
    expect((await client.put('/partner/webhook', { webhook_url: receiver.url })).status).toBe(200);

    // Drop every connection of the API and the worker every 300 ms while bookings come in.
    let dropped = 0;
    let rounds = 0;
    let chaos = true;
    const chaosLoop = (async () => {
      while (chaos) {
        dropped += await dropConnections(orm!, appName);
        rounds += 1;
        await sleep(300);
      }
    })();
    const seen: Record<number, number> = {};
    const booked: string[] = [];
    // A careful client: one Idempotency-Key per order, retried until it gets an answer that is not 5xx.
    await Promise.all(
      Array.from({ length: DELIVERIES }, async (_, i) => {
        await sleep(i * 400);
        for (;;) {
          const res = await client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': `order-${i}` });
          seen[res.status] = (seen[res.status] ?? 0) + 1;
          if (res.status === 201) {
            booked.push(res.body.id);
            return;
          }
          expect(res.status).toBeGreaterThanOrEqual(500);
          expect(res.body.error.code).toMatch(/^(unavailable|internal_error)$/);
          await sleep(200);
        }
      }),
    );
    await sleep(Math.max(0, CHAOS_MS - DELIVERIES * 400));
    chaos = false;
    await chaosLoop;

    await eventually(async () => {
      const views = await Promise.all(booked.map((id) => client.get(`/partner/deliveries/${id}`)));
      return views.every((v) => v.body.status === 'delivered' && v.body.payment_status === 'paid');
    }, 90_000, 'every delivery delivered and paid').catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await describeStuck(orm!, new Client({ connection }), booked)}`);
    });
    const expected = await orm.em.fork().execute<{ id: string }[]>('select id from webhook_events where delivery_id in (?)', [booked]);
    await eventually(async () => expected.every((e) => receiver.distinctEventIds().has(e.id)), 30_000, 'every webhook received');
    const received = expected.filter((e) => receiver.distinctEventIds().has(e.id)).length;
    const ledger = await count(orm, 'sandbox_momo_transactions where reference in (?)', [booked]);
    const debits = await count(orm, `debits where delivery_id in (?) and state = 'paid'`, [booked]);
    const deliveriesOfPartner = await count(orm, 'deliveries where partner_id = ?', [partner.partnerId]);

    process.stdout.write(
      [
        'fault: PostgreSQL connections dropped (pg_terminate_backend)',
        `  connections dropped: ${dropped} in ${rounds} rounds over ${CHAOS_MS / 1000} s; booking answers: ${JSON.stringify(seen)}`,
        `  deliveries told 201: ${booked.length}, rows: ${deliveriesOfPartner}`,
        `  webhook events expected ${expected.length}, received ${received} (deliveries incl. duplicates: ${receiver.received.length})`,
        `  debits expected ${booked.length}, made ${ledger} on the network, ${debits} paid`,
        '',
      ].join('\n'),
    );
    expect(dropped).toBeGreaterThan(0);
    expect(booked).toHaveLength(DELIVERIES);
    expect(new Set(booked).size).toBe(DELIVERIES);
    expect(deliveriesOfPartner).toBe(DELIVERIES);
    expect(expected).toHaveLength(DELIVERIES * 4);
    expect(received).toBe(expected.length);
    expect(ledger).toBe(DELIVERIES);
    expect(debits).toBe(DELIVERIES);
    for (const id of booked) {
      const events = (await client.get(`/partner/deliveries/${id}`)).body.events.map((e: { status: string }) => e.status);
      expect(events).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
    }
  }, 180_000);
});
