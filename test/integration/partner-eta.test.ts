import { startTestStack, type TestStack } from '../helpers/stack';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, livePartner, stopBody } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { ageEta, deliveryVersion } from '../helpers/db-deliveries';
import { viewsBuilt } from '../helpers/view-reads';
import { startTestReceiver, type TestReceiver } from '../helpers/webhook-test-receiver';
import type { EtaProvider, LegDurations } from '../../integrations/routing';
import type { LatLng } from '../../domain/geo';

/**
 * Every leg takes `legMinutes`, counted: the figures a test expects are plain, and how often the
 * provider is asked is what the 20-second limit is about. One provider for the API and the worker,
 * as both read the same setting.
 */
class EvenLegs implements EtaProvider {
  calls = 0;
  legMinutes = 10;
  async legs(points: LatLng[]): Promise<LegDurations> {
    this.calls += 1;
    return { legSeconds: points.slice(1).map(() => this.legMinutes * 60), estimated: false };
  }
}

const provider = new EvenLegs();
const ISO_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let stack: TestStack;
const receivers: TestReceiver[] = [];
beforeAll(async () => {
  stack = await startTestStack({ appOverrides: { eta: provider }, activityOverrides: { eta: provider } });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.close();
});
beforeEach(() => {
  provider.legMinutes = 10;
});

/** A live partner subscribed to a receiver, and a rider standing near the pickup. */
async function partnerAndRider(riderAt: LatLng = { lat: 5.552, lng: -0.205 }) {
  const partner = await livePartner(stack);
  const receiver = await startTestReceiver();
  receivers.push(receiver);
  await receiver.subscribe(stack.baseUrl, partner.liveKey);
  const rider = await riderApp(stack.baseUrl, stack.orm, 'Kwame Asante Boateng', riderAt);
  return { partner, receiver, rider };
}

const record = async (key: string, id: string) => {
  const res = await api(stack.baseUrl, key).get(`/partner/deliveries/${id}`);
  expect(res.status).toBe(200);
  return res.body;
};

/** The callback of `status` for the delivery, once it has arrived. */
const callbackData = (receiver: TestReceiver, id: string, status: string) =>
  eventually(async () => receiver.arrivalsFor(id).find((a) => a.body.status === status)?.body.data as any, 10_000, `the ${status} callback`);

/** `iso` lies `minutes` after some moment between `from` and `to` (ms), to the second. */
function expectMinutesAfter(iso: unknown, minutes: number, from: number, to: number): void {
  expect(iso).toMatch(ISO_Z);
  const at = Date.parse(iso as string);
  expect(at).toBeGreaterThanOrEqual(from + minutes * 60_000 - 1_000);
  expect(at).toBeLessThanOrEqual(to + minutes * 60_000 + 1_000);
}

describe('ETAs and the rider in the partner record', () => {
  it('gives no ETA, no stop ETA and no rider while a delivery waits for a rider', async () => {
    const partner = await livePartner(stack);
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });

    const view = await record(partner.liveKey, created.id);

    expect(view.status).toBe('pending');
    expect(view.pickup_eta).toBeNull();
    expect(view.dropoff_eta).toBeNull();
    expect(view.rider).toBeNull();
    expect(view.additional_stops[0].eta).toBeNull();
    // The booking's own answer carries the same fields.
    expect(created).toMatchObject({ pickup_eta: null, dropoff_eta: null });
  });

  it('carries the times ahead and where the rider is at each live status, in the record and its callbacks, and none once delivered', async () => {
    const { partner, receiver, rider } = await partnerAndRider();
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });
    const id = created.id;
    await rider.waitForOffer(id);

    // accepted: rider → pickup → stop → drop, ten minutes a leg.
    let before = Date.now();
    expect((await rider.client.post(`/rider/deliveries/${id}/accept`)).status).toBe(200);
    let after = Date.now();
    const accepted = await record(partner.liveKey, id);
    expect(accepted.status).toBe('accepted');
    expectMinutesAfter(accepted.pickup_eta, 10, before, after);
    expectMinutesAfter(accepted.additional_stops[0].eta, 20, before, after);
    expectMinutesAfter(accepted.dropoff_eta, 30, before, after);
    expect(accepted.rider).toEqual({
      id: rider.riderId,
      name: 'Kwame B.',
      vehicle: 'Motorbike',
      rating: null,
      lat: 5.552,
      lng: -0.205,
      located_at: expect.stringMatching(ISO_Z),
    });
    const acceptedCallback = await callbackData(receiver, id, 'accepted');
    expect(acceptedCallback).toMatchObject({
      pickup_eta: accepted.pickup_eta,
      dropoff_eta: accepted.dropoff_eta,
      rider: accepted.rider,
      additional_stops: [{ eta: accepted.additional_stops[0].eta }],
    });
    // The list shows the same figures.
    const listed = (await api(stack.baseUrl, partner.liveKey).get('/partner/deliveries')).body.find((d: { id: string }) => d.id === id);
    expect(listed).toMatchObject({ pickup_eta: accepted.pickup_eta, dropoff_eta: accepted.dropoff_eta, rider: accepted.rider });

    // The rider moves: the very next read shows where.
    expect((await rider.client.post('/rider/location', ACCRA.makola)).status).toBe(204);
    expect((await record(partner.liveKey, id)).rider).toMatchObject(ACCRA.makola);

    // picked_up: no pickup time any more; rider → stop → drop.
    before = Date.now();
    expect((await rider.pickup(id)).status).toBe(200);
    after = Date.now();
    const pickedUp = await record(partner.liveKey, id);
    expect(pickedUp.pickup_eta).toBeNull();
    expectMinutesAfter(pickedUp.additional_stops[0].eta, 10, before, after);
    expectMinutesAfter(pickedUp.dropoff_eta, 20, before, after);
    expect(await callbackData(receiver, id, 'picked_up')).toMatchObject({ pickup_eta: null, dropoff_eta: pickedUp.dropoff_eta });

    // in_transit, then the stop handed over: it has no time any more.
    expect((await rider.depart(id)).status).toBe(200);
    const inTransit = await callbackData(receiver, id, 'in_transit');
    expect(inTransit.dropoff_eta).toMatch(ISO_Z);
    expect(inTransit.rider).toMatchObject({ ...ACCRA.makola, located_at: expect.stringMatching(ISO_Z) });
    expect((await rider.completeStop(id, 0)).status).toBe(200);
    const stopDone = await record(partner.liveKey, id);
    expect(stopDone.additional_stops[0]).toMatchObject({ status: 'delivered', eta: null });
    expect(stopDone.dropoff_eta).toMatch(ISO_Z);

    // delivered: no time ahead, and no position for a rider who has ridden on.
    expect((await rider.deliver(id)).status).toBe(200);
    const delivered = await record(partner.liveKey, id);
    const deliveredCallback = await callbackData(receiver, id, 'delivered');
    for (const view of [delivered, deliveredCallback]) {
      expect(view.status).toBe('delivered');
      expect(view.pickup_eta).toBeNull();
      expect(view.dropoff_eta).toBeNull();
      expect(view.additional_stops[0].eta).toBeNull();
      expect(view.rider).toEqual({ id: rider.riderId, name: 'Kwame B.', vehicle: 'Motorbike', rating: null, lat: null, lng: null, located_at: null });
    }
  });

  it('stops showing the rider’s position and times once the partner cancels', async () => {
    const { partner, receiver, rider } = await partnerAndRider();
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.take(created.id);
    expect((await record(partner.liveKey, created.id)).dropoff_eta).toMatch(ISO_Z);

    const cancel = await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`);
    expect((await rider.client.post('/rider/location', ACCRA.osu)).status).toBe(204);

    const cancelledCallback = await callbackData(receiver, created.id, 'cancelled');
    for (const view of [cancel.body, await record(partner.liveKey, created.id), cancelledCallback]) {
      expect(view.status).toBe('cancelled');
      expect(view).toMatchObject({ pickup_eta: null, dropoff_eta: null });
      expect(view.rider).toMatchObject({ lat: null, lng: null, located_at: null });
    }
  });

  it('is refreshed at most every 20 s, one computation shared with the tracking view, which shows the same estimate', async () => {
    const { partner, rider } = await partnerAndRider();
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.take(created.id);
    expect((await rider.pickup(created.id)).status).toBe(200);
    // Fresh from the status change: reads within 20 s are served the figure it stored.
    const atPickup = await record(partner.liveKey, created.id);
    provider.legMinutes = 25;
    const calls = provider.calls;
    for (let i = 0; i < 5; i++) expect((await record(partner.liveKey, created.id)).dropoff_eta).toBe(atPickup.dropoff_eta);
    expect(provider.calls).toBe(calls);

    await ageEta(stack.orm, created.id, { seconds: 21 });
    const before = Date.now();
    const reads = [];
    for (let i = 0; i < 5; i++) {
      reads.push(await record(partner.liveKey, created.id));
      reads.push((await api(stack.baseUrl).get(`/track/${created.id}/public`)).body);
    }
    const after = Date.now();

    expect(provider.calls).toBe(calls + 1);
    const records = reads.filter((_, i) => i % 2 === 0);
    for (const view of records) expect(view.dropoff_eta).toBe(records[0].dropoff_eta);
    expectMinutesAfter(records[0].dropoff_eta, 25, before, after);
    for (const view of reads.filter((_, i) => i % 2 === 1)) expect(view.eta_min).toBe(25);
  });
});

describe('a live job’s record, polled', () => {
  /** Once the booking's debit has settled: its outcome changes the record (and its version) by itself. */
  const debitSettled = (key: string, id: string) =>
    eventually(async () => (await record(key, id)).payment_status !== 'pending', 10_000, 'the debit to settle');

  it('shows each ping and each ETA refresh on the very next read from the kept record: neither moves its version', async () => {
    const { partner, rider } = await partnerAndRider();
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });
    await rider.take(created.id);
    await debitSettled(partner.liveKey, created.id);
    const accepted = await record(partner.liveKey, created.id);
    const version = await deliveryVersion(stack.orm, created.id);
    const built = await viewsBuilt('record');

    expect((await rider.at(ACCRA.makola)).status).toBe(204);
    const moved = await record(partner.liveKey, created.id);
    expect(moved.rider).toMatchObject(ACCRA.makola);
    expect(moved.rider.located_at).not.toBe(accepted.rider.located_at);

    // Due again: the next read claims the refresh, and shows its times.
    provider.legMinutes = 25;
    await ageEta(stack.orm, created.id, { seconds: 21 });
    const before = Date.now();
    const refreshed = await record(partner.liveKey, created.id);
    expectMinutesAfter(refreshed.pickup_eta, 25, before, Date.now());
    expectMinutesAfter(refreshed.dropoff_eta, 75, before, Date.now());

    expect(await deliveryVersion(stack.orm, created.id)).toBe(version);
    expect(await viewsBuilt('record')).toBe(built);
    // Byte for byte what the list, which builds each delivery whole, shows of it.
    const listed = (await api(stack.baseUrl, partner.liveKey).get('/partner/deliveries')).body.find((d: { id: string }) => d.id === created.id);
    expect(JSON.stringify(refreshed)).toBe(JSON.stringify(listed));
  });

  it('answers If-None-Match with 304 and no body until anything it shows changes, the rider’s position and the ETA included', async () => {
    const { partner, rider } = await partnerAndRider();
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.take(created.id);
    await debitSettled(partner.liveKey, created.id);
    const client = api(stack.baseUrl, partner.liveKey);
    const path = `/partner/deliveries/${created.id}`;
    const read = async (etag: string) => {
      const res = await client.get(path, { 'If-None-Match': etag });
      return { status: res.status, etag: res.headers.get('etag') as string, body: res.body };
    };
    const first = await client.get(path);
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"[\w-]{27}"$/);

    const unchanged = await read(etag);
    expect(unchanged).toEqual({ status: 304, etag, body: null });
    expect((await read(`"elsewhere", ${etag}`)).status).toBe(304);
    // A stale or made-up tag gets the whole answer, with the same tag as before.
    expect(await read('"made-up"')).toEqual({ status: 200, etag, body: first.body });

    expect((await rider.at(ACCRA.osu)).status).toBe(204);
    const moved = await read(etag);
    expect(moved.status).toBe(200);
    expect(moved.body.rider).toMatchObject(ACCRA.osu);
    expect(moved.etag).not.toBe(etag);
    expect((await read(moved.etag)).status).toBe(304);

    provider.legMinutes = 15;
    await ageEta(stack.orm, created.id, { seconds: 21 });
    const refreshed = await read(moved.etag);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.dropoff_eta).not.toBe(moved.body.dropoff_eta);
    expect(refreshed.etag).not.toBe(moved.etag);

    expect((await rider.pickup(created.id)).status).toBe(200);
    const pickedUp = await read(refreshed.etag);
    expect(pickedUp.status).toBe(200);
    expect(pickedUp.body.status).toBe('picked_up');
    expect(pickedUp.etag).not.toBe(refreshed.etag);
    expect((await read(pickedUp.etag)).status).toBe(304);
  });
});
