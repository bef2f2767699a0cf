import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider, partnerClient } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, bookingBody, registerAccount, stopBody } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { sandboxRiderId } from '../../db/riders';
import { offersMadeFor } from '../helpers/db-deliveries';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

describe('delivery lifecycle over HTTP', () => {
  it('drives a test-mode delivery to delivered with the robo rider', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const created = await book(stack.baseUrl, partner.testKey);
    expect(created.status).toBe('pending');
    expect(created.rider_id).toBeNull();
    expect(created.payment_status).toBe('pending');
    // DESIGN section 9: the Delivery adds its short reference and the hosted page's address.
    expect(created.reference).toBe(`DLV-${created.id.slice(0, 8).toUpperCase()}`);
    expect(created.tracking_url).toBe(`${stack.settings.siteUrl}/track?id=${created.id}`);
    const page = await fetch(new URL(new URL(created.tracking_url).search, `${stack.baseUrl}/track`));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const client = partnerClient(stack.baseUrl, partner.testKey);
    const done = await eventually(async () => {
      const delivery = await client.deliveries.get(created.id);
      return delivery.status === 'delivered' && delivery.payment_status === 'paid' ? delivery : undefined;
    }, 20_000, 'robo delivery');
    expect(done.events.map((e) => e.status)).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
    // The robo rider has an id of its own, not the delivery's, and it is a UUID like every id.
    expect(done.rider_id).toBe(sandboxRiderId(created.id));
    expect(done.rider_id).not.toBe(created.id);
    expect(done.rider_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('lets the first of two riders win the job and walks it to delivered', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const first = await makeRider(stack.orm, ACCRA.makola, 'Kofi Mensah');
    const second = await makeRider(stack.orm, ACCRA.makola, 'Esi Owusu');
    const created = await book(stack.baseUrl, partner.liveKey);
    const riderA = api(stack.baseUrl, first.riderToken);
    const riderB = api(stack.baseUrl, second.riderToken);
    await eventually(async () => (await riderA.get('/rider/offers')).body.some((o: { delivery_id: string }) => o.delivery_id === created.id), 10_000, 'offer');
    await eventually(async () => (await riderB.get('/rider/offers')).body.length > 0, 10_000, 'offer to B');
    const [a, b] = await Promise.all([
      riderA.post(`/rider/deliveries/${created.id}/accept`),
      riderB.post(`/rider/deliveries/${created.id}/accept`),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? riderA : riderB;
    expect((await winner.post(`/rider/deliveries/${created.id}/pickup`)).status).toBe(200);
    expect((await winner.post(`/rider/deliveries/${created.id}/depart`)).status).toBe(200);
    const delivered = await winner.post(`/rider/deliveries/${created.id}/deliver`);
    expect(delivered.status).toBe(200);
    const record = await partnerClient(stack.baseUrl, partner.liveKey).deliveries.get(created.id);
    expect(record.status).toBe('delivered');
    expect(record.events.map((e) => e.status)).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
  });

  it('offers a job with what a rider needs to decide, and answers 404 to an accept of a job never offered', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const near = await riderApp(stack.baseUrl, stack.orm, 'Kwabena Asare');
    // Far beyond the widest dispatch radius (15 km): never offered a job at Makola.
    const far = await riderApp(stack.baseUrl, stack.orm, 'Efua Mensah', { lat: 6.6885, lng: -1.6244 });
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });
    await near.waitForOffer(created.id);

    const offer = (await near.client.get('/rider/offers')).body.find((o: { delivery_id: string }) => o.delivery_id === created.id);
    expect(offer).toEqual({
      delivery_id: created.id,
      pickup_address: created.pickup_address,
      pickup_lat: created.pickup_lat,
      pickup_lng: created.pickup_lng,
      dropoff_address: created.dropoff_address,
      dropoff_lat: created.dropoff_lat,
      dropoff_lng: created.dropoff_lng,
      stops_count: 1,
      stops: [
        {
          index: 0,
          dropoff_address: created.additional_stops[0]!.dropoff_address,
          dropoff_lat: created.additional_stops[0]!.dropoff_lat,
          dropoff_lng: created.additional_stops[0]!.dropoff_lng,
          package_size: created.additional_stops[0]!.package_size,
          package_description: null,
        },
      ],
      package_size: created.package_size,
      package_description: null,
      distance_km: created.distance_km,
      expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/),
    });
    expect(Date.parse(offer.expires_at)).toBeGreaterThan(Date.now());

    const refused = await far.client.post(`/rider/deliveries/${created.id}/accept`);
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('not_found');
    // The refusal changed nothing: the rider it was offered to still takes it.
    await near.take(created.id);
  });

  it('withdraws a job from every other rider once it is taken or cancelled, and tells a late accept it was taken', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const riderA = await riderApp(stack.baseUrl, stack.orm, 'Kwame Boateng');
    const riderB = await riderApp(stack.baseUrl, stack.orm, 'Akosua Darko');
    const listedToB = async (id: string) =>
      (await riderB.client.get('/rider/offers')).body.some((o: { delivery_id: string }) => o.delivery_id === id);
    // Offers still open, and offers made in all: a withdrawn offer is expired, not deleted.
    const offers = async (id: string) => {
      const made = await offersMadeFor(stack.orm, id);
      return { open: made.filter((o) => o.open).length, made: made.length };
    };

    const taken = await book(stack.baseUrl, partner.liveKey);
    await riderB.waitForOffer(taken.id);
    expect((await offers(taken.id)).open).toBeGreaterThanOrEqual(2);
    await riderA.take(taken.id); // answered 200, or it throws
    expect(await listedToB(taken.id)).toBe(false);
    const afterAccept = await offers(taken.id);
    expect(afterAccept.open).toBe(0);
    expect(afterAccept.made).toBeGreaterThanOrEqual(2);
    const late = await riderB.client.post(`/rider/deliveries/${taken.id}/accept`);
    expect(late.status).toBe(409);
    expect(late.body.error.details).toEqual({ status: 'accepted' });

    const cancelled = await book(stack.baseUrl, partner.liveKey);
    await riderB.waitForOffer(cancelled.id);
    expect((await partnerClient(stack.baseUrl, partner.liveKey).deliveries.cancel(cancelled.id)).status).toBe('cancelled');
    const afterCancel = await offers(cancelled.id);
    expect(afterCancel.open).toBe(0);
    expect(afterCancel.made).toBeGreaterThanOrEqual(1);
    expect((await riderB.client.post(`/rider/deliveries/${cancelled.id}/accept`)).status).toBe(409);
  });

  it('shows the rider the whole job, stops in visiting order, after every step', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Abena Asante');
    const stops = [
      stopBody({ recipient_name: 'Yaw Boateng', package_description: 'Two shirts' }),
      stopBody({ dropoff_address: 'University of Ghana, Legon', dropoff_lat: ACCRA.legon.lat, dropoff_lng: ACCRA.legon.lng, recipient_name: 'Efua Owusu', package_size: 'medium' }),
    ];
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: stops, package_description: 'Documents' });
    const pick = (from: Record<string, unknown>, fields: string[]) => Object.fromEntries(fields.map((field) => [field, from[field] ?? null]));
    // Recipients are reached through a masked number, never their own (DESIGN section 10).
    const parcel = ['recipient_name', 'package_size', 'package_description'];
    const call = { via: expect.stringMatching(/^\+23330\d{7}$/), expires_at: expect.any(String) };
    const stopView = (stop: Record<string, unknown>, index: number, status: string) => ({
      index,
      ...pick(stop, ['dropoff_address', 'dropoff_lat', 'dropoff_lng', ...parcel]),
      call,
      status,
    });
    // The job as booked: every field the rider needs, from what the partner sent.
    const booked = pick(bookingBody({ package_description: 'Documents' }), [
      'pickup_address', 'pickup_lat', 'pickup_lng', 'dropoff_address', 'dropoff_lat', 'dropoff_lng', ...parcel,
    ]);
    const accepted = await rider.take(created.id);
    expect(accepted).toEqual({
      delivery_id: created.id,
      reference: created.reference,
      status: 'accepted',
      ...booked,
      call,
      verification_method: 'none',
      stops: stops.map((stop, index) => stopView(stop, index, 'pending')),
    });
    const pickedUp = await rider.pickup(created.id);
    expect(pickedUp.body.status).toBe('picked_up');
    // Each step says how long its read and its workflow update took (Server-Timing); its answer is
    // built from that one read, the call numbers asked for while the update ran.
    expect(pickedUp.headers.get('server-timing')).toMatch(/^read;dur=\d+\.\d, update;dur=\d+\.\d$/);
    expect((await rider.depart(created.id)).body.status).toBe('in_transit');
    const firstDrop = await rider.completeStop(created.id, 0);
    expect(firstDrop.headers.get('server-timing')).toMatch(/^read;dur=[\d.]+, proof;dur=[\d.]+, update;dur=[\d.]+$/);
    expect(firstDrop.status).toBe(200);
    expect(firstDrop.body.stops).toEqual([stopView(stops[0]!, 0, 'delivered'), stopView(stops[1]!, 1, 'pending')]);
    expect((await rider.client.get('/rider/deliveries/current')).body).toEqual(firstDrop.body);
    expect((await rider.completeStop(created.id, 1)).status).toBe(200);
    const delivered = await rider.deliver(created.id);
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({ status: 'delivered', stops: [{ status: 'delivered' }, { status: 'delivered' }] });

    // A job the rider was never offered (offline riders get no offers) is unknown to them.
    expect((await rider.client.put('/rider/availability', { online: false })).status).toBe(200);
    const other = await book(stack.baseUrl, partner.liveKey);
    expect((await rider.pickup(other.id)).status).toBe(404);
  });

  it('refuses a step taken before the accept as out of order, with the status, and changes nothing', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Kwame Darko');
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.waitForOffer(created.id);
    const steps = [() => rider.pickup(created.id), () => rider.depart(created.id), () => rider.completeStop(created.id, 0), () => rider.deliver(created.id)];
    for (const step of steps) {
      const res = await step();
      expect({ status: res.status, code: res.body.error?.code, details: res.body.error?.details }).toEqual({
        status: 400,
        code: 'bad_request',
        details: { status: 'pending' },
      });
    }
    const record = await partnerClient(stack.baseUrl, partner.liveKey).deliveries.get(created.id);
    expect(record).toMatchObject({ status: 'pending', rider_id: null });
    expect(record.events.map((e) => e.status)).toEqual(['pending']);
    // The offer still stands: the rider can take the job in order.
    expect((await rider.take(created.id)).status).toBe('accepted');
    expect((await rider.pickup(created.id)).body.status).toBe('picked_up');
  });
});
