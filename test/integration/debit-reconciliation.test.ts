import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { SANDBOX, book, registerAccount } from '../helpers/bookings';
import { debitCheckOf, debitCorrectionsOf, ledgerOf } from '../helpers/db-payments';
import { startPaystackFake, type PaystackFake } from '../fakes/paystack-fake';
import { debitReconciliationWorkflow } from '../../workflows/debit-reconciliation';
import { liveDashboardOwner } from '../helpers/dashboard';
import { webhookEventsOf } from '../helpers/db-webhooks';

/**
 * The money record against the gateway's word, end to end: live keys debit the local Paystack
 * fake over HTTP, test keys the sandbox network, and the reconciliation runs as the schedule runs it.
 */

let fake: PaystackFake;
let stack: TestStack;
let callbackUrl: string;

beforeAll(async () => {
  fake = await startPaystackFake();
  // A charge whose answer never comes, though Paystack took it: it shows as paid when looked up.
  fake.setBehaviour('31', { kind: 'hang', settlesAs: 'success' });
  // The customer approves on the phone long after the confirmation limit: only a callback tells.
  fake.setBehaviour('32', { kind: 'pay_offline', settleAfterVerifies: 1_000_000, finalStatus: 'success' });
  stack = await startTestStack({
    env: {
      PAYMENT_GATEWAY: 'paystack',
      PAYSTACK_SECRET_KEY: fake.secretKey,
      PAYSTACK_BASE_URL: fake.baseUrl,
      PAYSTACK_TIMEOUT_MS: '500',
      PAYMENT_CONFIRM_LIMIT_SECONDS: '2',
      RECONCILE_INTERVAL_SECONDS: '2',
    },
    withSchedules: true,
  });
  callbackUrl = `${stack.baseUrl}/api/v1/payments/paystack/webhook`;
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

async function bookWith(phone: string, mode: 'live' | 'test' = 'live') {
  const partner = await makePartner(stack.orm);
  const key = mode === 'live' ? partner.liveKey : partner.testKey;
  await registerAccount(stack.baseUrl, key, phone);
  const booked = await book(stack.baseUrl, key);
  return { key, booked, client: api(stack.baseUrl, key) };
}

async function settledRecord(deliveryId: string) {
  return eventually(async () => {
    const row = await debitCheckOf(stack.orm, deliveryId);
    return row && row.state !== 'pending' ? row : undefined;
  }, 30_000, 'the debit to be recorded');
}

/** One round of the reconciliation, on the stack's worker, as the schedule starts it. */
function reconcile() {
  return stack.temporal.workflow.execute(debitReconciliationWorkflow, {
    taskQueue: stack.settings.temporalTaskQueue,
    workflowId: `debit-reconciliation-${randomUUID()}`,
    args: [{ pendingAfterSeconds: 3600, batch: 100 }],
  });
}

/** Ends the delivery, so its workflow completes once its debit is recorded. */
async function finish(client: ReturnType<typeof api>, id: string) {
  await client.post(`/partner/deliveries/${id}/cancel`);
  await eventually(async () => (await stack.temporal.workflow.getHandle(`delivery-${id}`).describe()).status.name === 'COMPLETED', 30_000, 'the workflow to end');
}

describe('a live debit whose outcome is unknown', () => {
  it('finds the charge Paystack made while every /charge timed out, records it paid, and charges once', async () => {
    // Each try looks the reference up first; a lagging lookup makes every one of the five time out or fail.
    fake.setVerifyLag(9);
    const charges = () => fake.requests.filter((r) => r.method === 'POST' && r.path === '/charge').length;
    const before = charges();
    const { booked } = await bookWith('+233241230031');

    const record = await settledRecord(booked.id);

    expect(record).toMatchObject({ state: 'paid', gateway_confirmed: true });
    expect(fake.charges.get(booked.id)?.status).toBe('success');
    // At most five tries, each posting /charge once its lookup answers (the first hangs, the rest
    // are refused as duplicates), then the lookup; on a loaded machine a try can time out before
    // it posts. However many posted, the network charged once.
    const posted = charges() - before;
    expect(posted).toBeGreaterThanOrEqual(1);
    expect(posted).toBeLessThanOrEqual(5);
    expect([...fake.charges.values()].filter((c) => c.reference === booked.id)).toHaveLength(1);
  });

  it('asks the sandbox after its no-answer number timed out five times, and records failed on its word with nothing taken', async () => {
    const { booked } = await bookWith(SANDBOX.outage, 'test');

    const record = await settledRecord(booked.id);

    expect(record).toMatchObject({ state: 'failed', gateway_confirmed: true });
    expect(await ledgerOf(stack.orm, booked.id)).toEqual([]);
  });
});

describe('a success that arrives after the record says failed', () => {
  it('is reconciled: the record turns paid on Paystack’s word, once for a doubled callback, with an audit row', async () => {
    const { booked, client } = await bookWith('+233241230032');
    expect(await settledRecord(booked.id)).toMatchObject({ state: 'failed', gateway_confirmed: false });
    await finish(client, booked.id);

    // The customer approves on the phone; Paystack reports it twice.
    expect((await fake.sendWebhook(callbackUrl, booked.id, 'charge.success')).statusCode).toBe(200);
    expect((await fake.sendWebhook(callbackUrl, booked.id, 'charge.success')).statusCode).toBe(200);

    await reconcile();
    await reconcile();

    expect(await debitCheckOf(stack.orm, booked.id)).toMatchObject({ state: 'paid', gateway_confirmed: true, recheck_requested_at: null });
    expect((await client.get(`/partner/deliveries/${booked.id}`)).body.payment_status).toBe('paid');
    expect(await debitCorrectionsOf(stack.orm, booked.id)).toEqual([{ from_state: 'failed', to_state: 'paid', gateway: 'paystack', trigger: 'schedule' }]);
    expect([...fake.charges.values()].filter((c) => c.reference === booked.id)).toHaveLength(1);
  });

  it('waits out a Paystack whose verify answers 5xx for a while, then corrects the record', async () => {
    const { booked, client } = await bookWith('+233241230032');
    expect(await settledRecord(booked.id)).toMatchObject({ state: 'failed', gateway_confirmed: false });
    await finish(client, booked.id);
    await fake.sendWebhook(callbackUrl, booked.id, 'charge.success');

    fake.setVerifyFailures(3);
    await reconcile();

    expect(await debitCheckOf(stack.orm, booked.id)).toMatchObject({ state: 'paid', gateway_confirmed: true });
    expect(await debitCorrectionsOf(stack.orm, booked.id)).toHaveLength(1);
  });

  it('turns a paid record failed when Paystack reports the charge reversed after the delivery ended', async () => {
    const { booked, client } = await bookWith('+233241230000');
    expect(await settledRecord(booked.id)).toMatchObject({ state: 'paid', gateway_confirmed: true });
    await finish(client, booked.id);

    // A record with the gateway's word is checked again only because the report asked for it.
    expect((await fake.sendWebhook(callbackUrl, booked.id, 'charge.failed')).statusCode).toBe(200);
    await eventually(async () => (await debitCheckOf(stack.orm, booked.id))?.state === 'failed', 20_000, 'the record to follow Paystack');

    expect((await client.get(`/partner/deliveries/${booked.id}`)).body.payment_status).toBe('failed');
    expect(await debitCorrectionsOf(stack.orm, booked.id)).toEqual([{ from_state: 'paid', to_state: 'failed', gateway: 'paystack', trigger: 'schedule' }]);
  });

  it('leaves a record that Paystack bears out as it is', async () => {
    const { booked, client } = await bookWith('+233241230000');
    expect(await settledRecord(booked.id)).toMatchObject({ state: 'paid', gateway_confirmed: true });
    await finish(client, booked.id);

    await reconcile();

    expect(await debitCheckOf(stack.orm, booked.id)).toMatchObject({ state: 'paid' });
    expect(await debitCorrectionsOf(stack.orm, booked.id)).toEqual([]);
  });
});

describe('the reconciliation schedule', () => {
  it('runs on its own, visible as a Temporal Schedule, and settles a late success with no round started by hand', async () => {
    const schedule = await stack.temporal.schedule.getHandle(`debit-reconciliation-${stack.settings.temporalTaskQueue}`).describe();
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'debitReconciliationWorkflow' });

    const { booked, client } = await bookWith('+233241230032');
    expect(await settledRecord(booked.id)).toMatchObject({ state: 'failed', gateway_confirmed: false });
    await finish(client, booked.id);
    await fake.sendWebhook(callbackUrl, booked.id, 'charge.success');

    await eventually(async () => (await debitCheckOf(stack.orm, booked.id))?.state === 'paid', 20_000, 'the scheduled round to correct the record');
    expect(await debitCorrectionsOf(stack.orm, booked.id)).toEqual([{ from_state: 'failed', to_state: 'paid', gateway: 'paystack', trigger: 'schedule' }]);
  });
});

describe('a payment status that changes after the last webhook', () => {
  it('sends no webhook, and is in the payment trail of the dashboard page, both ways', async () => {
    const { apiKey, dashboard } = await liveDashboardOwner(stack, 'Labone Pharmacy');
    const client = api(stack.baseUrl, apiKey);
    const trailOf = async (id: string) => {
      const page = await dashboard.get(`/dashboard/deliveries/${id}`);
      expect(page.status).toBe(200);
      const start = page.text.indexOf('id="payment-title"');
      return page.text.slice(start, page.text.indexOf('</section>', start)).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    };

    // A late approval: failed (no word from Paystack in time), then paid, after the cancel's webhook.
    await registerAccount(stack.baseUrl, apiKey, '+233241230032');
    const late = await book(stack.baseUrl, apiKey);
    expect(await settledRecord(late.id)).toMatchObject({ state: 'failed', gateway_confirmed: false });
    await finish(client, late.id);
    const eventsBefore = (await webhookEventsOf(stack.orm, late.id)).length;
    await fake.sendWebhook(callbackUrl, late.id, 'charge.success');
    await reconcile();
    expect((await client.get(`/partner/deliveries/${late.id}`)).body.payment_status).toBe('paid');
    expect(await webhookEventsOf(stack.orm, late.id)).toHaveLength(eventsBefore);
    const lateTrail = await trailOf(late.id);
    expect(lateTrail).toMatch(/Pending → Failed .*the mobile network answered the debit.*Failed → Paid .*reconciliation asked the mobile network again/is);
    expect(lateTrail.match(/After the last callback: no webhook was sent; payment_status reads paid from then on\./g)).toHaveLength(1);

    // A reversal: paid, then failed, after the cancel's webhook.
    const paying = await registerAccount(stack.baseUrl, apiKey, '+233241230000');
    const reversed = await book(stack.baseUrl, apiKey, { payment_method_id: paying.id });
    expect(await settledRecord(reversed.id)).toMatchObject({ state: 'paid', gateway_confirmed: true });
    await finish(client, reversed.id);
    const reversedBefore = (await webhookEventsOf(stack.orm, reversed.id)).length;
    await fake.sendWebhook(callbackUrl, reversed.id, 'charge.failed');
    await eventually(async () => (await debitCheckOf(stack.orm, reversed.id))?.state === 'failed', 20_000, 'the record to follow Paystack');
    expect(await webhookEventsOf(stack.orm, reversed.id)).toHaveLength(reversedBefore);
    expect(await trailOf(reversed.id)).toMatch(/Pending → Paid .*Paid → Failed .*After the last callback: no webhook was sent; payment_status reads failed/is);
  });
});
