import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, livePartner, registerAccount, stopBody } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { readOutbox } from '../../db/sms-outbox';
import { deliveryWorkflowId } from '../../domain/reference';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { acceptUpdate, pickupUpdate, stateQuery } from '../../workflows/messages';
import { handoverPhotosOf, offersMadeFor } from '../helpers/db-deliveries';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env: { OTP_MAX_ATTEMPTS: '3', OTP_LOCK_SECONDS: '8' } });
});
afterAll(async () => {
  await stack?.close();
});

const trail = (delivery: { events: { status: string }[] }) => delivery.events.map((e) => e.status);

/** The riders a job has been offered to, once there are at least `count` of them. */
async function offersOnceThereAre(deliveryId: string, count: number, what: string): Promise<Set<string>> {
  const offeredTo = async () => (await offersMadeFor(stack.orm, deliveryId)).map((o) => o.rider_id);
  return new Set(await eventually(async () => ((await offeredTo()).length >= count ? offeredTo() : undefined), 10_000, what));
}

describe('cancelling', () => {
  it('cancels a pending delivery for free, and a second cancel answers it again', async () => {
    const partner = await livePartner(stack);
    const created = await book(stack.baseUrl, partner.liveKey);
    const first = await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('cancelled');
    const again = await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('cancelled');
    expect(trail(again.body)).toEqual(['pending', 'cancelled']);
  });

  it('cancels an accepted delivery and frees the rider', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.take(created.id);
    const res = await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
    expect(res.status).toBe(200);
    expect(trail(res.body)).toEqual(['pending', 'accepted', 'cancelled']);
    expect((await rider.client.get('/rider/deliveries/current')).status).toBe(404);
    expect((await rider.pickup(created.id)).status).toBe(400);
  });

  it('refuses a cancel once the parcel is picked up, with the current status in details', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.take(created.id);
    expect((await rider.pickup(created.id)).status).toBe(200);
    const pickedUp = await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
    expect(pickedUp.status).toBe(400);
    expect(pickedUp.body.error.code).toBe('bad_request');
    expect(pickedUp.body.error.details.status).toBe('picked_up');
    expect((await rider.depart(created.id)).status).toBe(200);
    const inTransit = await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
    expect(inTransit.body.error.details.status).toBe('in_transit');
    expect((await rider.deliver(created.id)).status).toBe(200);
    const delivered = await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
    expect(delivered.status).toBe(400);
    expect(delivered.body.error.details.status).toBe('delivered');
    expect((await partner.client.get(`/partner/deliveries/${created.id}`)).body.status).toBe('delivered');
  });
});

describe('dispatch', () => {
  it('holds a rider to one active job at a time', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const first = await book(stack.baseUrl, partner.liveKey);
    const second = await book(stack.baseUrl, partner.liveKey);
    await rider.waitForOffer(second.id);
    await rider.take(first.id);
    const res = await rider.client.post(`/rider/deliveries/${second.id}/accept`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
    expect((await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${second.id}`)).body.status).toBe('pending');
    expect((await rider.client.get('/rider/deliveries/current')).body.delivery_id).toBe(first.id);
  });

  it('shows a rider no offers while holding a job or offline, and the open ones again when free', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const first = await book(stack.baseUrl, partner.liveKey);
    const second = await book(stack.baseUrl, partner.liveKey);
    await rider.waitForOffer(second.id);
    const offered = async () => ((await rider.client.get('/rider/offers')).body as { delivery_id: string }[]).map((o) => o.delivery_id);

    await rider.take(first.id);
    expect(await offered()).toEqual([]);
    await rider.pickup(first.id);
    await rider.depart(first.id);
    expect((await rider.deliver(first.id)).status).toBe(200);
    expect(await offered()).toContain(second.id);

    expect((await rider.client.put('/rider/availability', { online: false })).status).toBe(200);
    expect(await offered()).toEqual([]);
    expect((await rider.client.put('/rider/availability', { online: true })).status).toBe(200);
    expect(await offered()).toContain(second.id);
  });

  it('widens the search on its timer: a rider beyond the first radius is offered the job only then', async () => {
    const partner = await livePartner(stack);
    // About 4.5 km north of the pickup: outside the first 3 km, inside the 6 km of the first widening.
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Kwesi Afar', { lat: ACCRA.makola.lat + 0.0405, lng: ACCRA.makola.lng });
    const booked = Date.now();
    const created = await book(stack.baseUrl, partner.liveKey);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(((await rider.client.get('/rider/offers')).body as { delivery_id: string }[]).some((o) => o.delivery_id === created.id)).toBe(false);

    await rider.waitForOffer(created.id);

    expect(Date.now() - booked).toBeGreaterThanOrEqual(stack.settings.dispatchWidenSeconds * 1000);
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
  });

  it('offers a job to the 20 nearest free riders first, and to the next nearest when the search widens', async () => {
    const partner = await livePartner(stack);
    // Ada, in the service area's east where no other test's riders wait: 22 riders in a line north
    // of the pickup, 100 m apart, all inside the first 3 km; 14 inside dispatch's first look
    // (NEAR_FIRST_KM), so the round reads on to its whole radius for the other six.
    const ada = { lat: 5.8, lng: 0.6 };
    const riders = [];
    for (let i = 1; i <= 22; i++) riders.push(await makeRider(stack.orm, { lat: ada.lat + i * 0.0009, lng: ada.lng }, `Ada Rider ${i}`));
    const created = await book(stack.baseUrl, partner.liveKey, { pickup_lat: ada.lat, pickup_lng: ada.lng, dropoff_lat: 5.815, dropoff_lng: 0.615 });

    expect(await offersOnceThereAre(created.id, 20, 'the first round')).toEqual(new Set(riders.slice(0, 20).map((r) => r.riderId)));
    expect(await offersOnceThereAre(created.id, 22, 'the wider round')).toEqual(new Set(riders.map((r) => r.riderId)));
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
  });

  it('offers the first round to the 20 nearest of a crowd waiting close to the pickup', async () => {
    const partner = await livePartner(stack);
    // Sege, in the service area 28 km from Ada, where no other test's riders wait: 24 riders in a
    // line east of the pickup, 50 m apart, all inside dispatch's first look (NEAR_FIRST_KM), and
    // one more 2 km away.
    const sege = { lat: 5.86, lng: 0.35 };
    const crowd = [];
    for (let i = 1; i <= 24; i++) crowd.push(await makeRider(stack.orm, { lat: sege.lat, lng: sege.lng + i * 0.00045 }, `Sege Rider ${i}`));
    const beyond = await makeRider(stack.orm, { lat: sege.lat + 0.018, lng: sege.lng }, 'Sege Rider Beyond');
    const created = await book(stack.baseUrl, partner.liveKey, { pickup_lat: sege.lat, pickup_lng: sege.lng, dropoff_lat: 5.87, dropoff_lng: 0.36 });

    expect(await offersOnceThereAre(created.id, 20, 'the first round')).toEqual(new Set(crowd.slice(0, 20).map((r) => r.riderId)));
    expect(await offersOnceThereAre(created.id, 25, 'the wider round')).toEqual(new Set([...crowd, beyond].map((r) => r.riderId)));
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
  });

  it('does not offer a job to a rider far from the pickup', async () => {
    const partner = await livePartner(stack);
    const far = await riderApp(stack.baseUrl, stack.orm, 'Far Rider', { lat: 6.69, lng: -1.62 }); // Kumasi
    const created = await book(stack.baseUrl, partner.liveKey);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const offers = (await far.client.get('/rider/offers')).body as { delivery_id: string }[];
    expect(offers.some((o) => o.delivery_id === created.id)).toBe(false);
  });

  it('keeps the search attributes and the state query current for ops staff', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.take(created.id);
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id));
    const state = await handle.query(stateQuery);
    expect(state.status).toBe('accepted');
    const attributes = (await handle.describe()).searchAttributes;
    expect(attributes.DeliveryStatus).toEqual(['accepted']);
    expect(attributes.PartnerId).toEqual([partner.partnerId]);
    expect(attributes.DeliveryReference).toEqual([created.reference]);
  });
});

describe('messages the workflow refuses', () => {
  it('refuses them in the validator, so the refusal adds nothing to the workflow history', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.take(created.id);
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id));
    const historyLength = async () => (await handle.fetchHistory()).events?.length ?? 0;
    // Wait until the workflow has nothing of its own under way (debit settled, callback sent).
    const before = await eventually(async () => {
      const state = await handle.query(stateQuery);
      if (state.paymentStatus !== 'paid' || state.webhooksOutstanding > 0) return undefined;
      if ((await partner.client.get(`/partner/deliveries/${created.id}`)).body.payment_status !== 'paid') return undefined;
      const length = await historyLength();
      await new Promise((resolve) => setTimeout(resolve, 500));
      return (await historyLength()) === length ? length : undefined;
    }, 10_000, 'a quiet workflow');

    const refusals = await Promise.all([
      handle.executeUpdate(pickupUpdate, { args: [{ riderId: '00000000-0000-4000-8000-000000000000' }] }).catch((e: unknown) => e),
      handle.executeUpdate(acceptUpdate, { args: [{ riderId: rider.riderId }] }).catch((e: unknown) => e),
    ]);

    for (const refusal of refusals) expect(refusal).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(await historyLength()).toBe(before);
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
  });
});

describe('a test-mode delivery cancelled while the robo rider holds it', () => {
  let slow: TestStack;
  beforeAll(async () => {
    // One robo step every two seconds, so the cancel lands between two of them.
    slow = await startTestStack({ env: { ROBO_RIDER_STEP_SECONDS: '2' } });
  });
  afterAll(async () => {
    await slow?.close();
  });

  it('stops the robo rider: no step follows the cancel, and the robo rider ends with the delivery', async () => {
    const partner = await makePartner(slow.orm);
    await registerAccount(slow.baseUrl, partner.testKey);
    const client = api(slow.baseUrl, partner.testKey);
    const created = await book(slow.baseUrl, partner.testKey);
    await eventually(async () => (await client.get(`/partner/deliveries/${created.id}`)).body.status === 'accepted', 10_000, 'the robo rider to accept');

    const cancelled = await client.post(`/partner/deliveries/${created.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(trail(cancelled.body)).toEqual(['pending', 'accepted', 'cancelled']);

    await slow.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result();
    // The server applies the parent-close policy a moment after the delivery closes, so the
    // robo rider is ended soon after, not in the same instant.
    const robo = slow.temporal.workflow.getHandle(`robo-rider-${created.id}`);
    const ended = await eventually(async () => {
      const { name } = (await robo.describe()).status;
      return name !== 'RUNNING' && name;
    }, 10_000, 'the robo rider to end');
    expect(['TERMINATED', 'COMPLETED']).toContain(ended);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(trail((await client.get(`/partner/deliveries/${created.id}`)).body)).toEqual(['pending', 'accepted', 'cancelled']);
  });
});

describe('multi-drop deliveries', () => {
  it('hands over each stop in array order before the final drop', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, {
      additional_stops: [stopBody(), stopBody({ dropoff_lat: ACCRA.legon.lat, dropoff_lng: ACCRA.legon.lng, dropoff_address: 'Legon' })],
    });
    expect(created.additional_stops).toHaveLength(2);
    await rider.take(created.id);
    await rider.pickup(created.id);
    await rider.depart(created.id);
    const early = await rider.deliver(created.id);
    expect(early.status).toBe(400);
    const outOfOrder = await rider.completeStop(created.id, 1);
    expect(outOfOrder.status).toBe(400);
    expect((await rider.completeStop(created.id, 0)).status).toBe(200);
    expect((await rider.completeStop(created.id, 1)).status).toBe(200);
    expect((await rider.deliver(created.id)).status).toBe(200);
    const done = (await partner.client.get(`/partner/deliveries/${created.id}`)).body;
    expect(done.status).toBe('delivered');
    expect(done.additional_stops.map((s: { status: string }) => s.status)).toEqual(['delivered', 'delivered']);
    expect(done.additional_stops.every((s: { delivered_at: string | null }) => s.delivered_at !== null)).toBe(true);
  });

  it('refuses a stop out of order, with the next stop in details', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, {
      verification_method: 'otp',
      additional_stops: [stopBody(), stopBody({ dropoff_lat: ACCRA.legon.lat, dropoff_lng: ACCRA.legon.lng, dropoff_address: 'Legon' })],
    });
    await rider.take(created.id);
    await rider.pickup(created.id);
    await rider.depart(created.id);

    const outOfOrder = await rider.completeStop(created.id, 1, { otp: '000000' });

    expect(outOfOrder.status).toBe(400);
    expect(outOfOrder.body.error.details).toEqual({ status: 'in_transit', next_stop: 0 });
  });

  it('prices a multi-drop route over the whole route', async () => {
    const partner = await livePartner(stack);
    const single = await book(stack.baseUrl, partner.liveKey);
    const multi = await book(stack.baseUrl, partner.liveKey, {
      additional_stops: [stopBody({ dropoff_lat: ACCRA.legon.lat, dropoff_lng: ACCRA.legon.lng })],
    });
    expect(multi.distance_km).toBeGreaterThan(single.distance_km);
    expect(multi.total_fare).toBeGreaterThan(single.total_fare);
  });
});

describe('verification at hand-over', () => {
  /** A live `otp` delivery walked to `in_transit`, with the code its recipient was texted. */
  async function otpDeliveryInTransit(recipient: string) {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, { verification_method: 'otp', recipient_phone: recipient });
    const message = await eventually(
      async () => (await readOutbox(stack.orm.em.fork(), recipient)).find((m) => m.body.includes(created.reference)),
      10_000,
      'OTP text',
    );
    const code = /(\d{6})$/.exec(message.body)?.[1] as string;
    await rider.take(created.id);
    await rider.pickup(created.id);
    await rider.depart(created.id);
    return { partner, rider, created, code };
  }

  it('texts each recipient a code and requires it; wrong codes change nothing and many are refused for a while', async () => {
    const { partner, rider, created, code } = await otpDeliveryInTransit('+233244556677');
    expect(code).toMatch(/^\d{6}$/);
    const missing = await rider.deliver(created.id, {});
    expect(missing.status).toBe(400);
    const wrongCode = code === '000000' ? '111111' : '000000';
    const wrong = await rider.deliver(created.id, { otp: wrongCode });
    expect(wrong.status).toBe(400);
    expect((await partner.client.get(`/partner/deliveries/${created.id}`)).body.status).toBe('in_transit');
    await rider.deliver(created.id, { otp: wrongCode });
    await rider.deliver(created.id, { otp: wrongCode });
    const locked = await rider.deliver(created.id, { otp: code });
    expect(locked.status).toBe(400);
    expect(locked.body.error.details.otp).toMatch(/locked/);
    // Tries while the drop is locked are refused without being compared, so asking again is safe.
    const right = await eventually(async () => {
      const res = await rider.deliver(created.id, { otp: code });
      return /locked/.test(res.body.error?.details?.otp ?? '') ? undefined : res;
    }, 15_000, 'the lock to end');
    expect(right.body).toMatchObject({ status: 'delivered' });
    expect(right.status).toBe(200);
    expect(right.body.status).toBe('delivered');
  });

  it('compares wrong codes sent at once one at a time: the rest are refused, and no more than the allowed tries are compared', async () => {
    const { partner, rider, created, code } = await otpDeliveryInTransit('+233244556688');

    // Twenty guesses at once, as a rider app (or anyone holding its token) could send them.
    const wrongCode = code === '000000' ? '111111' : '000000';
    const answers = await Promise.all(Array.from({ length: 20 }, () => rider.deliver(created.id, { otp: wrongCode })));

    const refusals = answers.map((a) => `${a.status} ${a.body.error?.code as string} ${a.body.error?.details?.otp as string}`);
    // A try the workflow takes is answered for its code; one Temporal turns away (at its cap on a
    // workflow's open updates, or unprocessed after the API's own retries) is 503 `unavailable`,
    // never compared. Each in the envelope.
    const expected = /^(400 bad_request (does not match|another try is being checked|locked)|503 unavailable)/;
    expect(refusals.filter((r) => !expected.test(r))).toEqual([]);
    expect(refusals.filter((r) => r.endsWith('does not match')).length).toBeLessThanOrEqual(3);
    expect((await partner.client.get(`/partner/deliveries/${created.id}`)).body.status).toBe('in_transit');
  });

  it('requires a photo upload for photo verification', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, { verification_method: 'photo' });
    await rider.take(created.id);
    await rider.pickup(created.id);
    await rider.depart(created.id);
    expect((await rider.deliver(created.id)).status).toBe(400);
    const notAnImage = new FormData();
    notAnImage.append('photo', new Blob(['hello'], { type: 'image/png' }), 'fake.png');
    const refused = await fetch(`${stack.baseUrl}/api/v1/rider/deliveries/${created.id}/deliver`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rider.riderToken}` },
      body: notAnImage,
    });
    expect(refused.status).toBe(400);
    const huge = new FormData();
    huge.append('photo', new Blob([Buffer.alloc(6 * 1024 * 1024)], { type: 'image/png' }), 'huge.png');
    const tooLarge = await fetch(`${stack.baseUrl}/api/v1/rider/deliveries/${created.id}/deliver`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rider.riderToken}` },
      body: huge,
    });
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'payload_too_large',
      message: 'The photo is larger than 5 MB',
    });
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const form = new FormData();
    form.append('photo', new Blob([png], { type: 'image/png' }), 'handover.png');
    const accepted = await fetch(`${stack.baseUrl}/api/v1/rider/deliveries/${created.id}/deliver`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rider.riderToken}` },
      body: form,
    });
    expect(accepted.status).toBe(200);
    const [photo] = await handoverPhotosOf(stack.orm, created.id);
    expect(photo?.size_bytes).toBe(png.length);
  });

  it('knows a photo by its bytes, whatever type the upload part declares', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, { verification_method: 'photo', additional_stops: [stopBody()] });
    await rider.take(created.id);
    await rider.pickup(created.id);
    await rider.depart(created.id);
    const upload = (path: string, part: Blob) => {
      const form = new FormData();
      form.append('photo', part, 'door');
      return fetch(`${stack.baseUrl}/api/v1/rider/deliveries/${created.id}/${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${rider.riderToken}` },
        body: form,
      });
    };
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

    // No declared type at all (sent as application/octet-stream), as `curl -F photo=@door` sends it.
    expect((await upload('stops/0/complete', new Blob([jpeg]))).status).toBe(200);
    // A declared type that the bytes contradict.
    expect((await upload('deliver', new Blob([png], { type: 'image/jpeg' }))).status).toBe(200);

    expect(await handoverPhotosOf(stack.orm, created.id)).toMatchObject([
      { position: 0, content_type: 'image/jpeg' },
      { position: -1, content_type: 'image/png' },
    ]);
    expect((await partner.client.get(`/partner/deliveries/${created.id}`)).body.status).toBe('delivered');
  });
});

describe('a worker that dies mid-delivery', () => {
  it('loses nothing: the delivery finishes after the worker comes back', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.take(created.id);
    await stack.stopWorker();
    const pickup = rider.pickup(created.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await stack.startWorker();
    expect((await pickup).status).toBe(200);
    await rider.depart(created.id);
    await rider.deliver(created.id);
    const done = (await partner.client.get(`/partner/deliveries/${created.id}`)).body;
    expect(trail(done)).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
    await eventually(async () => (await partner.client.get(`/partner/deliveries/${created.id}`)).body.payment_status === 'paid', 10_000, 'paid');
  });
});

describe('listing', () => {
  it('lists newest first and pages with limit and offset; another partner sees none of it', async () => {
    const partner = await livePartner(stack);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await book(stack.baseUrl, partner.liveKey)).id);
    const page1 = await partner.client.get('/partner/deliveries?limit=2');
    const page2 = await partner.client.get('/partner/deliveries?limit=2&offset=2');
    expect(page1.body.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    expect(page2.body.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    const other = await livePartner(stack);
    expect((await other.client.get('/partner/deliveries')).body).toEqual([]);
    expect((await other.client.get(`/partner/deliveries/${ids[0]}`)).status).toBe(404);
    expect((await other.client.post(`/partner/deliveries/${ids[0]}/cancel`)).status).toBe(404);
    expect((await api(stack.baseUrl, partner.testKey).get(`/partner/deliveries/${ids[0]}`)).status).toBe(404);
  });
});
