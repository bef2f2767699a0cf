import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { SANDBOX, book, registerAccount, stopBody } from '../helpers/bookings';
import { debitsOf, ledgerOf } from '../helpers/db-payments';
import { deliveryWorkflowId } from '../../domain/reference';
import { paymentSettledSignal } from '../../workflows/messages';

async function paymentStatusBecomes(stack: TestStack, key: string, id: string, wanted: string, timeoutMs = 15_000) {
  return eventually(async () => {
    const res = await api(stack.baseUrl, key).get(`/partner/deliveries/${id}`);
    return res.body.payment_status === wanted ? res.body : undefined;
  }, timeoutMs, `payment_status ${wanted}`);
}

/** How many times the worker ran the debit request, from the workflow's own history. */
async function requestDebitAttempts(stack: TestStack, deliveryId: string): Promise<number> {
  const history = await stack.temporal.workflow.getHandle(deliveryWorkflowId(deliveryId)).fetchHistory();
  const events = history.events ?? [];
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'requestDebit');
  if (!scheduled) throw new Error('no requestDebit in history');
  const started = events.find(
    (e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId ?? -1) === Number(scheduled.eventId),
  );
  return started?.activityTaskStartedEventAttributes?.attempt ?? 0;
}

const cents = (cedis: number) => Math.round(cedis * 100);

describe('the debit of a booking on the sandbox network', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('debits a normal number once, in pesewas, and marks the delivery paid', async () => {
    const partner = await makePartner(stack.orm);
    const account = await registerAccount(stack.baseUrl, partner.testKey);
    const booked = await book(stack.baseUrl, partner.testKey);
    expect(booked.payment_status).toBe('pending');

    const paid = await paymentStatusBecomes(stack, partner.testKey, booked.id, 'paid');

    // Cedis with at most two decimals outside; the parts add up to the total to the pesewa.
    for (const field of ['base_fare', 'distance_fee', 'service_fee', 'total_fare']) {
      expect(Math.abs(paid[field] * 100 - cents(paid[field]))).toBeLessThan(1e-6);
    }
    expect(cents(paid.base_fare) + cents(paid.distance_fee) + cents(paid.service_fee)).toBe(cents(paid.total_fare));

    const [debit, ...moreDebits] = await debitsOf(stack.orm, booked.id);
    expect(moreDebits).toEqual([]);
    expect(debit).toMatchObject({ payment_method_id: account.id, gateway: 'sandbox', amount: cents(paid.total_fare), state: 'paid' });
    expect(Number.isInteger(debit?.amount)).toBe(true);
    expect(await ledgerOf(stack.orm, booked.id)).toEqual([
      { reference: booked.id, phone: SANDBOX.ok, provider: 'network_a', amount: cents(paid.total_fare), state: 'paid', reason: null },
    ]);
  });

  it('debits a multi-stop route for exactly the kilometres the booking shows', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    // Through Osu at this point the route is 11,514.69 m: charged as 11.51 km if priced before
    // the metres are rounded as they are stored, and shown as 11.52 km.
    const booked = await book(stack.baseUrl, partner.testKey, { additional_stops: [stopBody({ dropoff_lat: 5.556, dropoff_lng: -0.182 })] });
    const { pickup_lat, pickup_lng, dropoff_lat, dropoff_lng } = booked;
    const quote = await api(stack.baseUrl, partner.testKey).post('/partner/quotes', {
      pickup_lat,
      pickup_lng,
      dropoff_lat,
      dropoff_lng,
      additional_stops: [{ dropoff_lat: 5.556, dropoff_lng: -0.182 }],
    });

    const paid = await paymentStatusBecomes(stack, partner.testKey, booked.id, 'paid');
    // The quote for the same route priced it the same, part by part.
    for (const field of ['distance_km', 'base_fare', 'distance_fee', 'service_fee', 'total_fare']) {
      expect({ field, quoted: quote.body[field] }).toEqual({ field, quoted: paid[field] });
    }

    expect(paid.distance_km).toBe(11.52);
    expect(cents(paid.distance_fee)).toBe(Math.round(paid.distance_km * 250));
    expect(cents(paid.total_fare)).toBe(1000 + cents(paid.distance_fee) + 200);
    const [debit] = await debitsOf(stack.orm, booked.id);
    expect(debit?.amount).toBe(cents(paid.total_fare));
  });

  it('ends as failed when the wallet declines (…2222), without retrying, and the delivery goes on', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey, SANDBOX.declines);
    const booked = await book(stack.baseUrl, partner.testKey);

    await paymentStatusBecomes(stack, partner.testKey, booked.id, 'failed');
    // A failed payment neither stops nor cancels the delivery: the rider still takes the job.
    const moving = await eventually(async () => {
      const res = await api(stack.baseUrl, partner.testKey).get(`/partner/deliveries/${booked.id}`);
      return ['accepted', 'picked_up', 'in_transit', 'delivered'].includes(res.body.status) ? res.body : undefined;
    }, 20_000, 'the robo rider to take the job');

    expect(moving.payment_status).toBe('failed');
    expect(await requestDebitAttempts(stack, booked.id)).toBe(1);
    expect(await ledgerOf(stack.orm, booked.id)).toEqual([expect.objectContaining({ state: 'failed', reason: expect.stringMatching(/declined/i) })]);
    expect(await debitsOf(stack.orm, booked.id)).toEqual([expect.objectContaining({ state: 'failed', reason: expect.stringMatching(/declined/i) })]);
  });

  it('retries a network that times out (…3333), then marks the payment failed with no money taken', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey, SANDBOX.outage);
    const booked = await book(stack.baseUrl, partner.testKey);

    await paymentStatusBecomes(stack, partner.testKey, booked.id, 'failed', 20_000);

    expect(await requestDebitAttempts(stack, booked.id)).toBe(5);
    expect(await ledgerOf(stack.orm, booked.id)).toEqual([]);
    expect(await debitsOf(stack.orm, booked.id)).toEqual([expect.objectContaining({ state: 'failed' })]);
  });

  it('never changes a payment once it is paid', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const booked = await book(stack.baseUrl, partner.liveKey);
    await paymentStatusBecomes(stack, partner.liveKey, booked.id, 'paid');

    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(booked.id));
    await handle.signal(paymentSettledSignal, { state: 'failed', reason: 'a late contrary report' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const res = await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${booked.id}`);
    expect(res.body.payment_status).toBe('paid');
    expect(await debitsOf(stack.orm, booked.id)).toEqual([expect.objectContaining({ state: 'paid', reason: null })]);
    await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${booked.id}/cancel`);
  });

  it('never changes a payment once it has failed', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey, SANDBOX.declines);
    const booked = await book(stack.baseUrl, partner.liveKey);
    await paymentStatusBecomes(stack, partner.liveKey, booked.id, 'failed');

    await stack.temporal.workflow.getHandle(deliveryWorkflowId(booked.id)).signal(paymentSettledSignal, { state: 'paid' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const res = await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${booked.id}`);
    expect(res.body.payment_status).toBe('failed');
    expect(await debitsOf(stack.orm, booked.id)).toEqual([expect.objectContaining({ state: 'failed' })]);
    await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${booked.id}/cancel`);
  });

  it('keeps a paid fare when the delivery is cancelled: no refund, the debit as it was', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const booked = await book(stack.baseUrl, partner.liveKey);
    const paid = await paymentStatusBecomes(stack, partner.liveKey, booked.id, 'paid');
    const [debitBefore] = await debitsOf(stack.orm, booked.id);

    const cancelled = await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${booked.id}/cancel`);

    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', payment_status: 'paid', total_fare: paid.total_fare });
    await stack.temporal.workflow.getHandle(deliveryWorkflowId(booked.id)).result();
    const after = await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${booked.id}`);
    expect(after.body).toMatchObject({ status: 'cancelled', payment_status: 'paid', total_fare: paid.total_fare });
    expect(await debitsOf(stack.orm, booked.id)).toEqual([debitBefore]);
    expect(await ledgerOf(stack.orm, booked.id)).toEqual([expect.objectContaining({ amount: cents(paid.total_fare), state: 'paid' })]);
  });

  it('answers a repeated debit request for the same delivery from the ledger instead of debiting again', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const booked = await book(stack.baseUrl, partner.testKey);
    const paid = await paymentStatusBecomes(stack, partner.testKey, booked.id, 'paid');

    const again = await stack.deps.gateways.test.debit({
      reference: booked.id,
      provider: 'network_a',
      phone: SANDBOX.ok,
      amountPesewas: 99_999,
    });

    expect(again).toEqual({ state: 'paid' });
    expect(await ledgerOf(stack.orm, booked.id)).toEqual([expect.objectContaining({ amount: cents(paid.total_fare), state: 'paid' })]);
  });

  it('records a single debit when the same reference is requested twice at once', async () => {
    const reference = randomUUID();
    const request = { reference, provider: 'network_a' as const, phone: SANDBOX.ok, amountPesewas: 1_250 };

    const answers = await Promise.all([stack.deps.gateways.test.debit(request), stack.deps.gateways.test.debit(request)]);

    expect(answers).toEqual([{ state: 'pending' }, { state: 'pending' }]);
    expect(await ledgerOf(stack.orm, reference)).toHaveLength(1);
    await eventually(async () => (await ledgerOf(stack.orm, reference))[0]?.state === 'paid', 5_000, 'the sandbox to confirm');
  });
});

describe('a pending debit across duplicate confirmations and a worker restart', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // A slow network, so the debit is still pending while the test acts.
    stack = await startTestStack({ env: { SANDBOX_CONFIRM_MS: '3000' } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('debits exactly once when the confirmation is delivered twice', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const booked = await book(stack.baseUrl, partner.liveKey);
    await eventually(async () => (await ledgerOf(stack.orm, booked.id))[0]?.state === 'pending', 5_000, 'the debit request');

    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(booked.id));
    await handle.signal(paymentSettledSignal, { state: 'paid' });
    await handle.signal(paymentSettledSignal, { state: 'paid' });
    await paymentStatusBecomes(stack, partner.liveKey, booked.id, 'paid');
    const [firstRecord] = await debitsOf(stack.orm, booked.id);
    // The network's own confirmation arrives as a third delivery.
    await eventually(async () => (await ledgerOf(stack.orm, booked.id))[0]?.state === 'paid', 6_000, 'the network confirmation');
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    expect(await ledgerOf(stack.orm, booked.id)).toHaveLength(1);
    const records = await debitsOf(stack.orm, booked.id);
    expect(records).toEqual([expect.objectContaining({ state: 'paid' })]);
    expect(records[0]?.settled_at).toEqual(firstRecord?.settled_at);
    await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${booked.id}/cancel`);
  });

  it('still takes and records the debit when the delivery is cancelled while it is pending', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const booked = await book(stack.baseUrl, partner.liveKey);
    await eventually(async () => (await ledgerOf(stack.orm, booked.id))[0]?.state === 'pending', 5_000, 'the debit request');

    const cancelled = await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${booked.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', payment_status: 'pending' });

    // The workflow outlives the cancel until the network has answered, so the money taken is recorded.
    await stack.temporal.workflow.getHandle(deliveryWorkflowId(booked.id)).result();
    const after = await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${booked.id}`);
    expect(after.body).toMatchObject({ status: 'cancelled', payment_status: 'paid' });
    expect(await ledgerOf(stack.orm, booked.id)).toEqual([expect.objectContaining({ amount: cents(after.body.total_fare), state: 'paid' })]);
    expect(await debitsOf(stack.orm, booked.id)).toEqual([expect.objectContaining({ amount: cents(after.body.total_fare), state: 'paid' })]);
  });

  it('debits exactly once when the worker stops during a pending debit and starts again', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const booked = await book(stack.baseUrl, partner.testKey);
    await eventually(async () => (await ledgerOf(stack.orm, booked.id))[0]?.state === 'pending', 5_000, 'the debit request');

    await stack.stopWorker();
    // The network confirms while no worker is running; nothing can record it yet.
    await eventually(async () => (await ledgerOf(stack.orm, booked.id))[0]?.state === 'paid', 6_000, 'the network confirmation');
    expect((await api(stack.baseUrl, partner.testKey).get(`/partner/deliveries/${booked.id}`)).body.payment_status).toBe('pending');

    await stack.startWorker();
    const paid = await paymentStatusBecomes(stack, partner.testKey, booked.id, 'paid');

    expect(await ledgerOf(stack.orm, booked.id)).toEqual([expect.objectContaining({ amount: cents(paid.total_fare), state: 'paid' })]);
    expect(await debitsOf(stack.orm, booked.id)).toEqual([expect.objectContaining({ amount: cents(paid.total_fare), state: 'paid' })]);
    expect(await requestDebitAttempts(stack, booked.id)).toBe(1);
  });
});
