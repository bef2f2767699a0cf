import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { startTestReceiver, type Arrival, type TestReceiver } from '../helpers/webhook-test-receiver';
import { deliveryWorkflowId } from '../../domain/reference';
import { Value } from 'typebox/value';
import { DeliveryCallback } from '../../api/openapi/schemas';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OFFSET_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

let stack: TestStack;
const receivers: TestReceiver[] = [];
beforeAll(async () => {
  // A short dispatch deadline so a delivery nobody takes expires within the test; robo steps
  // slow enough that the debit has settled before the parcel is handed over.
  stack = await startTestStack({ env: { DISPATCH_TIMEOUT_SECONDS: '3', ROBO_RIDER_STEP_SECONDS: '0.3' } });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.close();
});

async function receiverFor(key: string): Promise<TestReceiver> {
  const receiver = await startTestReceiver();
  receivers.push(receiver);
  await receiver.subscribe(stack.baseUrl, key);
  return receiver;
}

/** Waits for the delivery workflow to complete: it does so only once every callback is settled. */
const finished = (deliveryId: string) => stack.temporal.workflow.getHandle(deliveryWorkflowId(deliveryId)).result();

/** Checks everything a single callback request must carry, and returns its body. */
function expectWellFormed(arrival: Arrival, deliveryId: string) {
  expect(arrival.validSignature).toBe(true);
  expect(arrival.headers['content-type']).toBe('application/json');
  expect(arrival.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  expect(arrival.headers['x-service-event-id']).toMatch(UUID);
  expect(arrival.headers['user-agent']).toMatch(/PartnerDeliveryService/);
  const body = arrival.body;
  expect(Object.keys(body)).toEqual(['event', 'delivery_id', 'status', 'occurred_at', 'data']);
  // What /openapi.json tells receivers to expect (its `webhooks`), checked against what was sent.
  expect([...Value.Errors(DeliveryCallback, body)]).toEqual([]);
  expect(body.event).toBe(`delivery.${body.status}`);
  expect(body.delivery_id).toBe(deliveryId);
  expect(body.occurred_at).toMatch(OFFSET_TIME);
  expect(body.data.status).toBe(body.status);
  // The status change's own entry in the trail is the moment the callback reports.
  const trail = body.data.events as { status: string; created_at: string }[];
  expect(trail[trail.length - 1]).toEqual({ status: body.status, created_at: body.occurred_at.replace('+00:00', 'Z') });
  return body;
}

describe('callbacks for each status change', () => {
  it('sends every event of a full lifecycle once, signed, with the Delivery as the API returns it', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const receiver = await receiverFor(partner.testKey);
    const created = await book(stack.baseUrl, partner.testKey);
    await finished(created.id);

    const arrivals = receiver.arrivalsFor(created.id).sort((a, b) => a.body.occurred_at.localeCompare(b.body.occurred_at));
    expect(arrivals.map((a) => a.body.event)).toEqual(['delivery.accepted', 'delivery.picked_up', 'delivery.in_transit', 'delivery.delivered']);
    expect(new Set(arrivals.map((a) => a.headers['x-service-event-id'])).size).toBe(4);
    for (const arrival of arrivals) {
      expectWellFormed(arrival, created.id);
      expect(arrival.answeredWith).toBe(204);
    }

    // Each `data` is the Delivery as GET returned it at the change: the final one is the record
    // now; the earlier ones differ from it only in what changed afterwards, and in what a live
    // job shows (where the rider was, and the times ahead from there).
    const record = (await api(stack.baseUrl, partner.testKey).get(`/partner/deliveries/${created.id}`)).body;
    expect(record.payment_status).toBe('paid');
    const trail = ['pending', 'accepted', 'picked_up', 'in_transit', 'delivered'];
    const time = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    arrivals.forEach((arrival, index) => {
      const status = trail[index + 1];
      const live = status !== 'delivered';
      expect(arrival.body.data).toEqual({
        ...record,
        status,
        payment_status: status === 'delivered' ? 'paid' : expect.stringMatching(/^(pending|paid)$/),
        delivered_at: status === 'delivered' ? record.delivered_at : null,
        events: record.events.slice(0, index + 2),
        pickup_eta: status === 'accepted' ? time : null,
        dropoff_eta: live ? time : null,
        rider: live ? { ...record.rider, lat: expect.any(Number), lng: expect.any(Number), located_at: time } : record.rider,
      });
    });
    expect(arrivals[0]!.body.data.rider_id).toBe(record.rider_id);
    expect(receiver.handled.map((c) => c.status).sort()).toEqual(['accepted', 'delivered', 'in_transit', 'picked_up']);
  });

  it('sends no event for pending', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const receiver = await receiverFor(partner.liveKey);
    const created = await book(stack.baseUrl, partner.liveKey);
    await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`);
    await finished(created.id);
    expect(receiver.arrivalsFor(created.id).map((a) => a.body.status)).toEqual(['cancelled']);
    const log = (await api(stack.baseUrl, partner.liveKey).get('/partner/webhook/deliveries')).body as { event: string }[];
    expect(log.map((entry) => entry.event)).toEqual(['delivery.cancelled']);
  });

  it('sends delivery.cancelled once when the partner cancels', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const receiver = await receiverFor(partner.liveKey);
    const created = await book(stack.baseUrl, partner.liveKey);
    const cancelled = await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`);
    expect(cancelled.status).toBe(200);
    await finished(created.id);

    const arrivals = receiver.arrivalsFor(created.id);
    expect(arrivals).toHaveLength(1);
    const body = expectWellFormed(arrivals[0]!, created.id);
    expect(body.event).toBe('delivery.cancelled');
    const record = (await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${created.id}`)).body;
    // The debit may settle between the callback and the read: the payment fields may differ, nothing else.
    expect(body.data).toEqual({ ...record, payment_status: expect.stringMatching(/^(pending|paid)$/), amount_paid: expect.any(Number) });
  });

  it('sends delivery.cancelled after delivery.accepted when the partner cancels a job a rider holds', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const receiver = await receiverFor(partner.liveKey);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Kwame Boateng');
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.take(created.id);
    expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
    await finished(created.id);

    // Each change's callback is sent on its own, so they are compared in the order they happened.
    const bodies = receiver
      .arrivalsFor(created.id)
      .map((arrival) => expectWellFormed(arrival, created.id))
      .sort((a, b) => a.occurred_at.localeCompare(b.occurred_at));
    expect(bodies.map((body) => body.event)).toEqual(['delivery.accepted', 'delivery.cancelled']);
    expect(bodies[1]!.data).toMatchObject({ status: 'cancelled', rider_id: rider.riderId });
  });

  it('sends delivery.expired once when no rider takes the job in time', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const receiver = await receiverFor(partner.liveKey);
    const created = await book(stack.baseUrl, partner.liveKey);
    await finished(created.id);

    const arrivals = receiver.arrivalsFor(created.id);
    expect(arrivals).toHaveLength(1);
    const body = expectWellFormed(arrivals[0]!, created.id);
    expect(body.event).toBe('delivery.expired');
    const record = (await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${created.id}`)).body;
    expect(body.data).toEqual(record);
    expect(body.data.payment_status).toBe('paid');
  });

  it('sends callbacks only to the partner and mode that booked the delivery', async () => {
    const owner = await makePartner(stack.orm);
    const other = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, owner.liveKey);
    const ownerLive = await receiverFor(owner.liveKey);
    const ownerTest = await receiverFor(owner.testKey);
    const otherLive = await receiverFor(other.liveKey);
    const created = await book(stack.baseUrl, owner.liveKey);
    await api(stack.baseUrl, owner.liveKey).post(`/partner/deliveries/${created.id}/cancel`);
    await finished(created.id);
    expect(ownerLive.arrivalsFor(created.id)).toHaveLength(1);
    expect(ownerTest.arrivals).toHaveLength(0);
    expect(otherLive.arrivals).toHaveLength(0);
  });
});
