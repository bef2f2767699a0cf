import { randomUUID } from 'node:crypto';
import { deliveryTimings } from '../../domain/timings';
import { initOrm, type Orm } from '../../db/orm';
import { sandboxLedger } from '../../db/sandbox-ledger';
import { deliveryReference, deliveryWorkflowId } from '../../domain/reference';
import { createBookingActivities } from '../../activities/booking';
import * as bookings from '../../db/bookings';
import { poolTransaction } from '../../db/pool-query';
import { createPaymentActivities } from '../../activities/payments';
import { GatewayUnavailableError, type MobileMoneyGateway } from '../../integrations/mobile-money/gateway';
import { SandboxNetwork } from '../../integrations/mobile-money/sandbox';
import { activityDeps } from '../../workers/activity-deps';
import { DEBIT_STORE_UNAVAILABLE, type DeliveryWorkflowInput } from '../../workflows/messages';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy';
import { ACCRA, book, commitBookingRow, registerAccount } from '../helpers/bookings';
import { api, eventually } from '../helpers/http';
import { makePartner } from '../helpers/partners';
import { startTestStack, type TestStack } from '../helpers/stack';
import { deliveryRow, tracesOf } from '../helpers/db-deliveries';
import { debitsOf } from '../helpers/db-payments';

// The worker reaches Postgres through a relay the test can cut; the API reaches it directly, so
// bookings are taken and committed while the worker cannot read them.
let proxy: TcpProxy;
let workerOrm: Orm;
let stack: TestStack;

// Once set, the next debit request cuts the relay and goes unanswered, as when the network's
// answer is lost just as Postgres goes down: the tries that follow fail on our side.
let cutAtNextDebit = false;
function cuttingAtNextDebit(mode: 'live' | 'test'): MobileMoneyGateway {
  const network = () => stack.deps.gateways[mode];
  return {
    get name() {
      return network().name;
    },
    resolve: (provider, phone) => network().resolve(provider, phone),
    async debit(request) {
      if (!cutAtNextDebit) return network().debit(request);
      cutAtNextDebit = false;
      await proxy.cut();
      throw new GatewayUnavailableError('The network did not answer');
    },
    status: (reference) => network().status(reference),
  };
}

beforeAll(async () => {
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  proxy = await startTcpProxy(url.hostname, Number(url.port));
  url.host = `127.0.0.1:${proxy.port}`;
  workerOrm = await initOrm(url.toString(), 4);
  stack = await startTestStack({
    activityOverrides: { orm: workerOrm, gateways: { live: cuttingAtNextDebit('live'), test: cuttingAtNextDebit('test') } },
  });
});
afterAll(async () => {
  await stack?.close();
  await workerOrm?.close();
  await proxy?.close();
});

describe('a worker that loses Postgres just after a booking', () => {
  it('starts the delivery once Postgres answers again, however long that takes', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const client = api(stack.baseUrl, partner.testKey);

    await proxy.cut();
    let created: { id: string };
    try {
      created = await book(stack.baseUrl, partner.testKey);
      // A claim that cannot reach Postgres is tried again for as long as it takes: only a row found missing ends it.
      await new Promise((resolve) => setTimeout(resolve, 15_000));
      expect((await client.get(`/partner/deliveries/${created.id}`)).body).toMatchObject({ status: 'pending', payment_status: 'pending' });
    } finally {
      await proxy.restore();
    }

    // The claim's next try comes within its 10 s backoff; then the debit and every rider step.
    const done = await eventually(async () => {
      const res = await client.get(`/partner/deliveries/${created.id}`);
      return res.body.status === 'delivered' && res.body.payment_status === 'paid' ? res.body : undefined;
    }, 60_000, 'the robo rider to deliver and the debit to settle');
    expect(done.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
    expect(await stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result()).toMatchObject({ status: 'delivered' });
  }, 120_000);
});

describe('a booking withdrawn by the API before its workflow began', () => {
  it('ends the workflow at once, having done nothing: no debit, no text, no offer, no event', async () => {
    // As when the API's start reached Temporal only after the API had given up on it and withdrawn the row.
    const deliveryId = randomUUID();
    const input: DeliveryWorkflowInput = {
      deliveryId,
      partnerId: randomUUID(),
      mode: 'test',
      reference: deliveryReference(deliveryId, stack.settings.referencePrefix),
      pickup: ACCRA.makola,
      stops: [],
      dropoff: ACCRA.airport,
      verificationMethod: 'otp',
      timings: deliveryTimings(stack.settings),
    };
    const handle = await stack.temporal.workflow.start('deliveryWorkflow', {
      workflowId: deliveryWorkflowId(deliveryId),
      taskQueue: stack.settings.temporalTaskQueue,
      args: [input],
    });

    expect(await handle.result()).toMatchObject({ status: 'pending', paymentStatus: 'pending' });
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [])).toEqual([]);
    expect(events.filter((e) => e.timerStartedEventAttributes || e.startChildWorkflowExecutionInitiatedEventAttributes)).toEqual([]);
    expect(await tracesOf(stack.orm, deliveryId)).toEqual({ debits: 0, delivery_otps: 0, sms_outbox: 0, rider_offers: 0, delivery_events: 0, webhook_events: 0 });
  }, 60_000);

  it('cannot be claimed once withdrawn, nor withdrawn once its workflow claimed it', async () => {
    const partner = await makePartner(stack.orm);
    const account = await registerAccount(stack.baseUrl, partner.testKey);
    const owner = { partnerId: partner.partnerId, mode: 'test' as const, paymentMethodId: account.id };
    const { settings, orm, temporal, deps } = stack;
    const { beginDelivery } = createBookingActivities(activityDeps({ settings, orm, temporal, logger: deps.logger, gateways: deps.gateways }));
    const withdraw = (id: string) => poolTransaction(orm.em, (tx) => bookings.withdrawUnclaimed(tx, id));

    const withdrawn = await commitBookingRow(orm, owner);
    expect(await withdraw(withdrawn)).toBe(true);
    await expect(beginDelivery({ deliveryId: withdrawn })).rejects.toMatchObject({ type: 'BookingNotFound', nonRetryable: true });
    expect((await tracesOf(orm, withdrawn)).delivery_events).toBe(0);

    const claimed = await commitBookingRow(orm, owner);
    await beginDelivery({ deliveryId: claimed });
    // A retried first step finds its own claim, and goes on.
    await beginDelivery({ deliveryId: claimed });
    expect(await withdraw(claimed)).toBe(false);
    expect(await deliveryRow(orm, claimed)).toMatchObject({ claimed: true });
  });
});

describe('a worker that loses Postgres while requesting a debit', () => {
  it('requests it again once Postgres answers, rather than mark the payment failed', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const client = api(stack.baseUrl, partner.testKey);

    cutAtNextDebit = true;
    const created = await book(stack.baseUrl, partner.testKey);
    try {
      await eventually(async () => !cutAtNextDebit, 15_000, 'the debit to be requested');
      // Longer than the debit's 5 tries take with the tests' 0.2 s first interval (about 3 s).
      await new Promise((resolve) => setTimeout(resolve, 8_000));
      expect((await client.get(`/partner/deliveries/${created.id}`)).body.payment_status).toBe('pending');
    } finally {
      await proxy.restore();
    }

    const done = await eventually(async () => {
      const res = await client.get(`/partner/deliveries/${created.id}`);
      return res.body.status === 'delivered' && res.body.payment_status !== 'pending' ? res.body : undefined;
    }, 30_000, 'the delivery to end and its debit to settle');
    expect(done.payment_status).toBe('paid');
    expect(await debitsOf(stack.orm, created.id)).toMatchObject([{ state: 'paid', reason: null }]);
  }, 90_000);
});

describe('the sandbox network losing its ledger, kept in our Postgres, during a debit', () => {
  it('reports the outage as ours, so it spends none of the debit’s tries', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const created = await book(stack.baseUrl, partner.testKey);
    // The activity reads the delivery straight from Postgres; only the sandbox's ledger is behind the relay.
    const sandbox = new SandboxNetwork({ ledger: sandboxLedger(() => workerOrm.em.fork()), confirmMs: 0 });
    const { settings, orm, temporal, deps } = stack;
    const { requestDebit } = createPaymentActivities(
      activityDeps({ settings, orm, temporal, logger: deps.logger, gateways: { live: sandbox, test: sandbox } }),
    );

    await proxy.cut();
    try {
      // Raised as our outage, not the driver's error, which the workflow would count as the network failing.
      await expect(requestDebit({ deliveryId: created.id })).rejects.toMatchObject({ type: DEBIT_STORE_UNAVAILABLE });
    } finally {
      await proxy.restore();
    }
    // The same request, the ledger back: the network answers (the delivery's own debit used the same reference).
    expect(['pending', 'paid']).toContain((await requestDebit({ deliveryId: created.id })).state);
  }, 60_000);
});
