import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { deliveriesByIds } from '../helpers/db-deliveries';
import { debitsOf, ledgerOf } from '../helpers/db-payments';
import { webhookEventsOf } from '../helpers/db-webhooks';
import { describeStuck, driveRider, sleep, spawnWorker, WebhookReceiver, type ChildHandle } from './support';

/** Kumasi: far from the other tests' riders, so only this test's riders are offered these jobs. */
const KUMASI = { lat: 6.6885, lng: -1.6244 };
const DROPOFF = { lat: 6.7001, lng: -1.6302 };
const DELIVERIES = 20;

let stack: TestStack;
const receiver = new WebhookReceiver();
const workers: ChildHandle[] = [];
beforeAll(async () => {
  stack = await startTestStack({ withoutWorker: true, env: { DISPATCH_TIMEOUT_SECONDS: '180' } });
  await receiver.up();
});
afterAll(async () => {
  for (const worker of workers) await worker.stop('SIGKILL');
  await receiver.down();
  await stack?.close();
});

describe('a worker process killed in the middle of live deliveries', () => {
  it('finishes all 20 after a restart, with every webhook delivered and each debit made once', async () => {
    // Debits take 3 s to confirm, so some are still open when the worker dies.
    // Info logs (kept in the log file): a worker slow to stop shows whether it was still draining.
    const workerEnv = { SANDBOX_CONFIRM_MS: '3000', LOG_LEVEL: 'info' };
    workers.push(spawnWorker(stack.settings.temporalTaskQueue, workerEnv));

    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const hook = await api(stack.baseUrl, partner.liveKey).put('/partner/webhook', { webhook_url: receiver.url });
    expect(hook.status).toBe(200);
    const riders = await Promise.all(Array.from({ length: DELIVERIES }, (_, i) => makeRider(stack.orm, KUMASI, `Rider Kumasi ${i}`)));
    const bookings = await Promise.all(
      riders.map(() =>
        book(stack.baseUrl, partner.liveKey, {
          pickup_address: 'Kejetia Market, Kumasi',
          pickup_lat: KUMASI.lat,
          pickup_lng: KUMASI.lng,
          dropoff_address: 'Adum, Kumasi',
          dropoff_lat: DROPOFF.lat,
          dropoff_lng: DROPOFF.lng,
        }),
      ),
    );
    const ids = bookings.map((b) => b.id);

    const started = Date.now();
    const say = (what: string) => process.stdout.write(`  [${((Date.now() - started) / 1000).toFixed(1)} s] ${what}\n`);
    say('20 deliveries booked');
    const deadline = Date.now() + 150_000;
    const driving = Promise.all(
      ids.map((deliveryId, i) =>
        driveRider({ baseUrl: stack.baseUrl, riderToken: riders[i]!.riderToken, partnerKey: partner.liveKey, deliveryId, deadline }),
      ),
    );

    // Kill the worker once riders are on the road and nothing is finished yet.
    await eventually(async () => (await deliveriesByIds(stack.orm, ids)).filter((d) => d.status !== 'pending').length >= 5, 60_000, 'riders under way');
    const atKill = await deliveriesByIds(stack.orm, ids);
    const snapshot = {
      active: atKill.filter((d) => ['pending', 'accepted', 'picked_up', 'in_transit'].includes(d.status)).length,
      delivered: atKill.filter((d) => d.status === 'delivered').length,
      unpaid: atKill.filter((d) => d.payment_status === 'pending').length,
    };
    expect((await workers[0]!.stop('SIGKILL')).signal).toBe('SIGKILL');
    say(`worker killed with ${snapshot.active} deliveries under way`);
    await sleep(2_000);
    say('worker restarted');
    workers.push(spawnWorker(stack.settings.temporalTaskQueue, workerEnv));

    const retries = (await driving).reduce((a, b) => a + b, 0);
    say('riders done');
    const client = api(stack.baseUrl, partner.liveKey);
    await eventually(async () => {
      const views = await Promise.all(ids.map((id) => client.get(`/partner/deliveries/${id}`)));
      return views.every((v) => v.body.status === 'delivered' && v.body.payment_status === 'paid');
    }, 60_000, 'every delivery delivered and paid').catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await describeStuck(stack.orm, stack.temporal, ids)}`);
    });

    const expected = await webhookEventsOf(stack.orm, ids);
    await eventually(async () => expected.every((e) => receiver.distinctEventIds().has(e.id)), 60_000, 'every webhook received');
    const received = expected.filter((e) => receiver.distinctEventIds().has(e.id)).length;
    const debits = await debitsOf(stack.orm, ids);
    const debitRows = debits.length;
    const paidDebits = debits.filter((d) => d.state === 'paid').length;
    const ledger = (await ledgerOf(stack.orm, ids)).length;

    process.stdout.write(
      [
        'fault: worker killed (SIGKILL) and restarted',
        `  deliveries in flight at the kill: ${snapshot.active} of ${DELIVERIES} (delivered ${snapshot.delivered}, debits unconfirmed ${snapshot.unpaid})`,
        `  rider retries: ${retries}`,
        `  webhook events expected ${expected.length}, received ${received} (deliveries incl. duplicates: ${receiver.received.length})`,
        `  debits expected ${DELIVERIES}, made ${ledger} on the network, ${debitRows} recorded, ${paidDebits} paid`,
        '',
      ].join('\n'),
    );
    expect(expected).toHaveLength(DELIVERIES * 4);
    expect(received).toBe(expected.length);
    expect(debitRows).toBe(DELIVERIES);
    expect(ledger).toBe(DELIVERIES);
    expect(paidDebits).toBe(DELIVERIES);
    for (const id of ids) {
      const events = (await client.get(`/partner/deliveries/${id}`)).body.events.map((e: { status: string }) => e.status);
      expect(events).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
    }

    // A worker asked to stop drains and exits cleanly.
    const stopped = await workers[1]!.stop('SIGTERM', 30_000);
    expect(stopped.code).toBe(0);
  }, 240_000);
});
