import { WorkflowNotFoundError } from '@temporalio/client';
import type { BookingRequest, Delivery } from '../../clients/typescript/src';
import { sandboxRiderId } from '../../db/riders';
import { deliveryWorkflowId } from '../../domain/reference';
import { bookingBody, registerAccount, stopBody } from '../helpers/bookings';
import { deliveriesOf } from '../helpers/db-deliveries';
import { riderRow } from '../helpers/db-riders';
import { api, eventually } from '../helpers/http';
import { makePartner, partnerClient } from '../helpers/partners';
import { startTestStack, type TestStack } from '../helpers/stack';
import { startTestReceiver, type TestReceiver } from '../helpers/webhook-test-receiver';

/**
 * The sandbox a partner drives: a test booking with `Sandbox-Rider: manual` gets no robo rider,
 * and each `POST /partner/deliveries/{id}/simulate` takes one step of its sandbox rider through
 * the workflow updates a rider's requests become, answered with the Delivery, its webhook after.
 */

let stack: TestStack;
const receivers: TestReceiver[] = [];
beforeAll(async () => {
  // A dispatch deadline no step of these tests waits for: only `expire` ends a pending job here.
  stack = await startTestStack({ env: { DISPATCH_TIMEOUT_SECONDS: '300' } });
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await stack?.close();
});

/** A route at Dodowa, in the service area 20 km from every test rider, so a live booking there is never taken. */
const DODOWA = { pickup_lat: 5.88, pickup_lng: -0.1, dropoff_lat: 5.895, dropoff_lng: -0.085 };

/** A test-mode partner with a sandbox account and a webhook receiver, and its typed client. */
async function sandboxPartner() {
  const partner = await makePartner(stack.orm);
  await registerAccount(stack.baseUrl, partner.testKey);
  const receiver = await startTestReceiver();
  receivers.push(receiver);
  await receiver.subscribe(stack.baseUrl, partner.testKey);
  return { ...partner, receiver, client: partnerClient(stack.baseUrl, partner.testKey), http: api(stack.baseUrl, partner.testKey) };
}

const roboRiderStarted = async (deliveryId: string) =>
  stack.temporal.workflow
    .getHandle(`robo-rider-${deliveryId}`)
    .describe()
    .then(() => true)
    .catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    });

/** Waits until the receiver has handled the callback of `status` for the delivery. */
const callbackOf = (receiver: TestReceiver, deliveryId: string, status: string) =>
  eventually(async () => receiver.handled.find((c) => c.delivery_id === deliveryId && c.status === status), 15_000, `the ${status} callback`);

describe('a manual sandbox rider', () => {
  it('is driven through every step, each answered with the Delivery and followed by its webhook in order', async () => {
    const { client, receiver } = await sandboxPartner();
    const booking = bookingBody({
      verification_method: 'otp',
      additional_stops: [stopBody(), stopBody({ recipient_name: 'Efua Asante', dropoff_lat: 5.5601, dropoff_lng: -0.1966 })],
    }) as BookingRequest;
    const created = await client.deliveries.create(booking, { sandboxRider: 'manual' });
    // Paid before the first step, so nothing but the steps moves the record while it is compared.
    await eventually(async () => (await client.deliveries.get(created.id)).payment_status === 'paid', 15_000, 'the debit');
    // Several robo steps' time (ROBO_RIDER_STEP_SECONDS is 0.1 s): nobody has taken the job.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await roboRiderStarted(created.id)).toBe(false);
    expect(await client.deliveries.get(created.id)).toMatchObject({ status: 'pending', rider_id: null });

    const steps = [
      { step: 'accept', status: 'accepted', stopsDone: 0 },
      { step: 'pickup', status: 'picked_up', stopsDone: 0 },
      { step: 'depart', status: 'in_transit', stopsDone: 0 },
      { step: 'complete_stop', status: 'in_transit', stopsDone: 1 },
      { step: 'complete_stop', status: 'in_transit', stopsDone: 2 },
      { step: 'deliver', status: 'delivered', stopsDone: 2 },
    ] as const;
    let previous: Delivery | undefined;
    for (const { step, status, stopsDone } of steps) {
      const answer = await client.deliveries.simulate(created.id, step);
      // The same view as GET /partner/deliveries/{id}.
      expect(answer).toEqual(await client.deliveries.get(created.id));
      expect(answer.status).toBe(status);
      expect(answer.rider_id).toBe(sandboxRiderId(created.id));
      expect(answer.additional_stops.map((stop) => stop.status)).toEqual([0, 1].map((i) => (i < stopsDone ? 'delivered' : 'pending')));
      if (status !== previous?.status) {
        const callback = await callbackOf(receiver, created.id, status);
        expect(callback.event).toBe(`delivery.${status}`);
        expect(callback.data).toMatchObject({ status, rider_id: answer.rider_id });
      }
      previous = answer;
    }

    // One callback a status change, in the order of the steps; a stop changes no status and sends none.
    const events = receiver.arrivalsFor(created.id).map((arrival) => arrival.body.event);
    expect(events).toEqual(['delivery.accepted', 'delivery.picked_up', 'delivery.in_transit', 'delivery.delivered']);
    expect(receiver.arrivalsFor(created.id).every((arrival) => arrival.validSignature)).toBe(true);
    expect(previous?.events.map((e) => e.status)).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
    // The sandbox rider went where each step was taken, and no rider remains holding the job.
    const rider = await riderRow(stack.orm, sandboxRiderId(created.id));
    expect(rider).toMatchObject({ name: 'Sandbox Rider', lat: booking.dropoff_lat, lng: booking.dropoff_lng, active_delivery_id: null });
    expect(previous?.rider?.name).toBe('Sandbox R.');
    expect((await stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result()).status).toBe('delivered');
  }, 60_000);

  it('hands over where the booking asks for a photo: the sandbox rider brings one by itself, and its proof links it', async () => {
    const { client } = await sandboxPartner();
    const created = await client.deliveries.create(
      bookingBody({ verification_method: 'photo', additional_stops: [stopBody()] }) as BookingRequest,
      { sandboxRider: 'manual' },
    );
    for (const step of ['accept', 'pickup', 'depart', 'complete_stop'] as const) await client.deliveries.simulate(created.id, step);
    expect((await client.deliveries.simulate(created.id, 'deliver')).status).toBe('delivered');

    // A test integration reads a real photo through the same signed link a live one would.
    const proof = await client.deliveries.proof(created.id);
    expect(proof.map((h) => [h.stop_index, h.method, typeof h.photo_url])).toEqual([
      [0, 'photo', 'string'],
      [null, 'photo', 'string'],
    ]);
    for (const handover of proof) {
      // Links point at SITE_URL, the public address; this API listens on a port of its own.
      const link = new URL(handover.photo_url as string);
      const photo = await fetch(new URL(`${link.pathname}${link.search}`, stack.baseUrl));
      expect([photo.status, photo.headers.get('content-type')]).toEqual([200, 'image/png']);
      expect(Buffer.from(await photo.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    }
  }, 30_000);

  it('refuses a step the status does not allow in the error envelope, as a rider’s would be, and changes nothing', async () => {
    const { client, http, receiver } = await sandboxPartner();
    const created = await client.deliveries.create(bookingBody() as BookingRequest, { sandboxRider: 'manual' });
    const simulate = (step: string) => http.post(`/partner/deliveries/${created.id}/simulate`, { step });

    expect(await simulate('pickup')).toMatchObject({
      status: 400,
      body: { error: { code: 'bad_request', message: 'Cannot pick up while the delivery is pending', details: { status: 'pending' } } },
    });
    expect((await simulate('deliver')).body.error).toMatchObject({ code: 'bad_request', details: { status: 'pending' } });
    expect((await simulate('fly')).body.error).toMatchObject({ code: 'bad_request', details: { step: expect.stringContaining('accept') } });
    expect((await client.deliveries.get(created.id)).status).toBe('pending');

    await client.deliveries.simulate(created.id, 'accept');
    expect(await simulate('accept')).toMatchObject({
      status: 409,
      body: { error: { code: 'conflict', message: 'This job is no longer available', details: { status: 'accepted' } } },
    });
    expect(await simulate('expire')).toMatchObject({
      status: 400,
      body: { error: { code: 'bad_request', message: 'A delivery that is accepted can no longer expire', details: { status: 'accepted' } } },
    });
    await client.deliveries.simulate(created.id, 'pickup');
    await client.deliveries.simulate(created.id, 'depart');
    // This booking has no additional stop: the rules know no such stop.
    expect(await simulate('complete_stop')).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: 'This delivery has no such stop' } },
    });
    expect((await client.deliveries.get(created.id)).status).toBe('in_transit');
    await callbackOf(receiver, created.id, 'in_transit');
    expect(receiver.arrivalsFor(created.id).map((a) => a.body.event)).toEqual(['delivery.accepted', 'delivery.picked_up', 'delivery.in_transit']);
    await client.deliveries.simulate(created.id, 'deliver');
  }, 30_000);

  it('expires a pending job now, as the dispatch deadline would, with its webhook', async () => {
    const { client, receiver } = await sandboxPartner();
    const created = await client.deliveries.create(bookingBody() as BookingRequest, { sandboxRider: 'manual' });
    const answer = await client.deliveries.simulate(created.id, 'expire');
    expect(answer).toEqual(await client.deliveries.get(created.id));
    expect(answer).toMatchObject({ status: 'expired', rider_id: null });
    expect(answer.events.map((e) => e.status)).toEqual(['pending', 'expired']);
    expect((await callbackOf(receiver, created.id, 'expired')).event).toBe('delivery.expired');
    expect((await stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result()).status).toBe('expired');
  }, 30_000);
});

describe('the sandbox and live keys', () => {
  it('is a path that does not exist for a live key, whatever it sends, and its live delivery stays as it was', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const live = api(stack.baseUrl, partner.liveKey);
    // At Dodowa, in the service area and far from every test rider: nobody takes it meanwhile.
    const booked = await live.post('/partner/deliveries', bookingBody({ ...DODOWA }));
    expect(booked.status).toBe(201);
    const path = `/partner/deliveries/${booked.body.id}/simulate`;
    const answers = [await live.post(path, { step: 'accept' }), await live.post(path, { step: 'fly' }), await live.get(path)];
    for (const res of answers) {
      expect(res).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'No such route', details: {} } } });
    }
    expect((await live.get(`/partner/deliveries/${booked.body.id}`)).body).toMatchObject({ status: 'pending', rider_id: null });
    await live.post(`/partner/deliveries/${booked.body.id}/cancel`);
  });

  it('refuses Sandbox-Rider on a live booking with 400 and books nothing', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    for (const value of ['manual', 'robo']) {
      const res = await api(stack.baseUrl, partner.liveKey).post('/partner/deliveries', bookingBody(), { 'Sandbox-Rider': value });
      expect(res).toMatchObject({
        status: 400,
        body: { error: { code: 'bad_request', message: 'Sandbox-Rider is for test-mode keys only', details: { 'Sandbox-Rider': expect.any(String) } } },
      });
    }
    expect(await deliveriesOf(stack.orm, partner.partnerId)).toEqual([]);
  });

  it('refuses a value of Sandbox-Rider it does not know', async () => {
    const { http } = await sandboxPartner();
    const res = await http.post('/partner/deliveries', bookingBody(), { 'Sandbox-Rider': 'pilot' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('bad_request');
  });

  it('treats the same Idempotency-Key with another Sandbox-Rider as another request (409)', async () => {
    const { http } = await sandboxPartner();
    const first = await http.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'sandbox-1', 'Sandbox-Rider': 'manual' });
    expect(first.status).toBe(201);
    const again = await http.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'sandbox-1', 'Sandbox-Rider': 'manual' });
    expect(again).toMatchObject({ status: 201, body: { id: first.body.id } });
    const other = await http.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'sandbox-1' });
    expect(other.status).toBe(409);
    await http.post(`/partner/deliveries/${first.body.id}/simulate`, { step: 'expire' });
  });
});

describe('the robo rider', () => {
  it('still rides a test booking by default, and the sandbox refuses to take its steps', async () => {
    const { client, http, receiver } = await sandboxPartner();
    const created = await client.deliveries.create(bookingBody() as BookingRequest);
    await callbackOf(receiver, created.id, 'delivered');
    expect(await roboRiderStarted(created.id)).toBe(true);
    expect(await http.post(`/partner/deliveries/${created.id}/simulate`, { step: 'accept' })).toMatchObject({
      status: 400,
      body: { error: { code: 'bad_request', details: { status: 'delivered', sandbox_rider: 'robo' } } },
    });
  }, 30_000);

  it('hands over a photo of its own where the booking asks for one, linked from the proof', async () => {
    const { client, receiver } = await sandboxPartner();
    const created = await client.deliveries.create(bookingBody({ verification_method: 'photo' }) as BookingRequest);
    await callbackOf(receiver, created.id, 'delivered');
    const [handover] = await client.deliveries.proof(created.id);
    const link = new URL(handover?.photo_url as string);
    const photo = await fetch(new URL(`${link.pathname}${link.search}`, stack.baseUrl));
    expect([photo.status, photo.headers.get('content-type')]).toEqual([200, 'image/png']);
  }, 30_000);

  it('lets no partner drive another partner’s delivery', async () => {
    const owner = await sandboxPartner();
    const other = await sandboxPartner();
    const created = await owner.client.deliveries.create(bookingBody() as BookingRequest, { sandboxRider: 'manual' });
    expect(await other.http.post(`/partner/deliveries/${created.id}/simulate`, { step: 'accept' })).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: 'Unknown delivery' } },
    });
    await owner.client.deliveries.simulate(created.id, 'expire');
  });
});
