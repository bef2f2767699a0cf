import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { initOrm, type Orm } from '../../db/orm';
import { freePort } from '../helpers/free-port';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { bookingBody, registerAccount } from '../helpers/bookings';
import { deliveryIdsOf } from '../helpers/db-deliveries';
import { dropConnections } from '../helpers/db-faults';
import { debitsOf, ledgerOf } from '../helpers/db-payments';
import { webhookEventsOf } from '../helpers/db-webhooks';
import {
  describeStuck,
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

    // Drop every connection of the API and the worker every 300 ms for a while, as bookings come in.
    let dropped = 0;
    let rounds = 0;
    const chaosEnds = Date.now() + CHAOS_MS;
    const chaos = (async () => {
      while (Date.now() < chaosEnds) {
        dropped += await dropConnections(orm!, appName);
        rounds += 1;
        await sleep(300);
      }
    })();
    const seen: Record<string, number> = {};
    const booked: string[] = [];
    const deadline = Date.now() + 60_000;
    // A careful client: one Idempotency-Key per order, retried until it gets an answer that is not 5xx.
    await Promise.all(
      Array.from({ length: DELIVERIES }, async (_, i) => {
        await sleep(i * 400);
        while (Date.now() < deadline) {
          const res = await fetch(`${baseUrl}/api/v1/partner/deliveries`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${partner.testKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': `order-${i}` },
            body: JSON.stringify(bookingBody()),
            signal: AbortSignal.timeout(20_000),
          }).then(
            async (r) => ({ status: r.status, body: (await r.json()) as { id: string; error: { code: string } } }),
            () => ({ status: 0, body: null }),
          );
          const label = res.status === 0 ? 'no answer' : `${res.status}${res.body?.error ? ` ${res.body.error.code}` : ''}`;
          seen[label] = (seen[label] ?? 0) + 1;
          if (res.status === 201 && res.body) {
            booked.push(res.body.id);
            return;
          }
          await sleep(200);
        }
      }),
    );
    await chaos;
    await eventually(async () => {
      const views = await Promise.all(booked.map((id) => client.get(`/partner/deliveries/${id}`)));
      return views.every((v) => v.body.status === 'delivered' && v.body.payment_status === 'paid');
    }, 90_000, 'every delivery delivered and paid').catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await describeStuck(orm!, new Client({ connection }), booked)}`);
    });
    const expected = await webhookEventsOf(orm, booked);
    await eventually(async () => expected.every((e) => receiver.distinctEventIds().has(e.id)), 30_000, 'every webhook received');
    const received = expected.filter((e) => receiver.distinctEventIds().has(e.id)).length;
    // Every debit of this partner, so a delivery the partner was never told of would show up as one too many.
    const ofPartner = await deliveryIdsOf(orm, partner.partnerId);
    const ledger = (await ledgerOf(orm, ofPartner)).length;
    const debits = (await debitsOf(orm, ofPartner)).filter((d) => d.state === 'paid').length;
    const deliveriesOfPartner = ofPartner.length;

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
    expect(Object.keys(seen).filter((k) => !/^(201|503 unavailable)$/.test(k))).toEqual([]);
    expect(booked).toHaveLength(DELIVERIES);
    expect(new Set(booked).size).toBe(DELIVERIES);
    expect(deliveriesOfPartner).toBe(DELIVERIES);
    expect(expected).toHaveLength(DELIVERIES * 4);
    expect(received).toBe(expected.length);
    expect(ledger).toBe(DELIVERIES);
    expect(debits).toBe(DELIVERIES);
    for (const id of booked) {
      const res = await client.get(`/partner/deliveries/${id}`);
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
      expect(res.body.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
    }
  }, 180_000);
});
