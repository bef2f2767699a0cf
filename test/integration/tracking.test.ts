import { execFile } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, registerAccount, stopBody } from '../helpers/bookings';
import { ageEta } from '../helpers/db-deliveries';
import { viewsBuilt } from '../helpers/view-reads';
import { setRider } from '../helpers/db-riders';
import { readOutbox } from '../../db/sms-outbox';
import { StraightLineRouting, type EtaProvider, type LegDurations } from '../../integrations/routing';
import type { LatLng } from '../../domain/geo';

const execFileAsync = promisify(execFile);

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  duration: number;
}

/** The offline estimate, counting how often it is asked: the figure the 20-second limit is about. */
class CountingEta implements EtaProvider {
  calls = 0;
  private readonly inner = new StraightLineRouting();
  async legs(points: LatLng[]): Promise<LegDurations> {
    this.calls += 1;
    return this.inner.legs(points);
  }
}

const counting = new CountingEta();
// Everything here polls from 127.0.0.1; the per-IP limit is another file's subject.
const env = { RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000' };

let stack: TestStack;
let second: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env, appOverrides: { eta: counting } });
  // A second API process on the same database and task queue, as production scales out, and
  // configured as production is (answers are not checked against the schema on the way out).
  second = await startTestStack({
    env: { ...env, TEMPORAL_TASK_QUEUE: stack.settings.temporalTaskQueue },
    withoutWorker: true,
    appOverrides: { eta: counting, validateResponses: false },
  });
});
afterAll(async () => {
  await second?.close();
  await stack?.close();
});

const track = (id: string, base = stack.baseUrl) => api(base).get(`/track/${id}/public`);

function ghanaPhone(): string {
  return `+23324${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
}

/** A live delivery that a real rider (over the rider API) has accepted. */
async function acceptedDelivery(overrides: Record<string, unknown> = {}) {
  const partner = await makePartner(stack.orm);
  await registerAccount(stack.baseUrl, partner.liveKey);
  const rider = await makeRider(stack.orm, ACCRA.makola, 'Kwame Asante Boateng');
  await setRider(stack.orm, rider.riderId, { rating: 4.8 });
  const created = await book(stack.baseUrl, partner.liveKey, overrides);
  const riderApi = api(stack.baseUrl, rider.riderToken);
  await eventually(
    async () => (await riderApi.get('/rider/offers')).body.some((o: { delivery_id: string }) => o.delivery_id === created.id),
    10_000,
    'the offer',
  );
  expect((await riderApi.post(`/rider/deliveries/${created.id}/accept`)).status).toBe(200);
  return { partner, rider, riderApi, created };
}

async function moveRider(riderApi: ReturnType<typeof api>, at: LatLng): Promise<void> {
  expect((await riderApi.post('/rider/location', at)).status).toBe(204);
}

/** Every string and number anywhere in a JSON value. */
function leaves(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [value];
}

describe('public tracking view', () => {
  it('shows every field of the view before a rider accepts, with the rider and ETA still null', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });

    const res = await track(created.id);

    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      reference: `DLV-${created.id.slice(0, 8).toUpperCase()}`,
      status: 'pending',
      package_size: 'small',
      pickup_address: 'Makola Market, Accra',
      pickup_lat: ACCRA.makola.lat,
      pickup_lng: ACCRA.makola.lng,
      dropoff_address: 'Kotoka International Airport, Accra',
      dropoff_lat: ACCRA.airport.lat,
      dropoff_lng: ACCRA.airport.lng,
      recipient_name: 'Ama M.',
      eta_min: null,
      rider: null,
      stops: [{ dropoff_lat: ACCRA.osu.lat, dropoff_lng: ACCRA.osu.lng, status: 'pending', eta_min: null }],
      events: [{ status: 'pending', lat: null, lng: null, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) }],
    });
  });

  it('never shows a phone number, a fare or the hand-over code, even once the parcel is handed over', async () => {
    const recipientPhone = ghanaPhone();
    const { riderApi, created } = await acceptedDelivery({ verification_method: 'otp', recipient_phone: recipientPhone });
    const code = await eventually(async () => {
      const [sms] = await readOutbox(stack.orm.em.fork(), recipientPhone);
      return sms?.body.match(/(\d{6})$/)?.[1];
    }, 10_000, 'the recipient code');
    await riderApi.post(`/rider/deliveries/${created.id}/pickup`);
    await riderApi.post(`/rider/deliveries/${created.id}/depart`);
    const live = await track(created.id);
    expect((await riderApi.post(`/rider/deliveries/${created.id}/deliver`, { otp: code })).status).toBe(200);
    const done = await track(created.id);

    for (const view of [live, done]) {
      const text = JSON.stringify(view.body);
      for (const secret of ['+233', recipientPhone, 'phone', 'fare', 'fee', 'total', 'otp', 'code', 'Serwaa', 'Mensah', 'Asante', 'Boateng']) {
        expect(text).not.toContain(secret);
      }
      expect(leaves(view.body).map(String)).not.toContain(code);
      expect(view.body.recipient_name).toBe('Ama M.');
      expect(view.body.rider.name).toBe('Kwame B.');
    }
    expect(done.body.status).toBe('delivered');
    expect(done.body.eta_min).toBeNull();
  });

  it('names the rider, places each change where it happened and counts minutes through each stop', async () => {
    const stops = [stopBody(), stopBody({ dropoff_lat: ACCRA.legon.lat, dropoff_lng: ACCRA.legon.lng, dropoff_address: 'Legon' })];
    const near = { accepted: { lat: 5.552, lng: -0.205 }, picked_up: ACCRA.makola, in_transit: { lat: 5.551, lng: -0.2 } };
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await makeRider(stack.orm, near.accepted, 'Kwame Asante Boateng');
    await setRider(stack.orm, rider.riderId, { rating: 4.8 });
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: stops });
    const riderApi = api(stack.baseUrl, rider.riderToken);
    await eventually(async () => (await riderApi.get('/rider/offers')).body.some((o: any) => o.delivery_id === created.id), 10_000, 'offer');
    await riderApi.post(`/rider/deliveries/${created.id}/accept`);
    await moveRider(riderApi, near.picked_up);
    await riderApi.post(`/rider/deliveries/${created.id}/pickup`);
    await moveRider(riderApi, near.in_transit);
    await riderApi.post(`/rider/deliveries/${created.id}/depart`);
    await moveRider(riderApi, ACCRA.osu);
    expect((await riderApi.post(`/rider/deliveries/${created.id}/stops/0/complete`)).status).toBe(200);
    const position = { lat: 5.6, lng: -0.18 };
    await moveRider(riderApi, position);
    // The departure stored its own figure, from where the rider was then; this read makes a new one.
    await ageEta(stack.orm, created.id, { seconds: 21 });

    const { body: view } = await track(created.id);

    expect(view.status).toBe('in_transit');
    expect(view.rider).toEqual({ name: 'Kwame B.', vehicle: 'Motorbike', rating: 4.8, ...position });
    expect(view.events.map((e: any) => [e.status, e.lat, e.lng])).toEqual([
      ['pending', null, null],
      ['accepted', near.accepted.lat, near.accepted.lng],
      ['picked_up', near.picked_up.lat, near.picked_up.lng],
      ['in_transit', near.in_transit.lat, near.in_transit.lng],
    ]);
    // From the rider, through the stop still to do, to the final drop (the offline estimate).
    const { legSeconds } = await new StraightLineRouting().legs([position, ACCRA.legon, ACCRA.airport]);
    const toLegon = Math.ceil(legSeconds[0]! / 60);
    const toDrop = Math.ceil((legSeconds[0]! + legSeconds[1]!) / 60);
    expect(view.stops).toEqual([
      { dropoff_lat: ACCRA.osu.lat, dropoff_lng: ACCRA.osu.lng, status: 'delivered', eta_min: null },
      { dropoff_lat: ACCRA.legon.lat, dropoff_lng: ACCRA.legon.lng, status: 'pending', eta_min: toLegon },
    ]);
    expect(view.eta_min).toBe(toDrop);
  });

  it('shows an empty stops list for a single drop, and null for a rider’s missing vehicle and rating', async () => {
    const { rider, created } = await acceptedDelivery();
    await setRider(stack.orm, rider.riderId, { vehicle: null, rating: null });

    const { body: view } = await track(created.id);
    expect(view.stops).toEqual([]);
    expect(view.rider).toEqual({ name: 'Kwame B.', vehicle: null, rating: null, lat: expect.any(Number), lng: expect.any(Number) });
  });

  it('stops showing where the rider is once the job has ended, delivered or cancelled', async () => {
    const delivered = await acceptedDelivery();
    await delivered.riderApi.post(`/rider/deliveries/${delivered.created.id}/pickup`);
    await delivered.riderApi.post(`/rider/deliveries/${delivered.created.id}/depart`);
    await moveRider(delivered.riderApi, { lat: 5.6, lng: -0.18 });
    expect((await track(delivered.created.id)).body.rider).toMatchObject({ lat: 5.6, lng: -0.18 });
    expect((await delivered.riderApi.post(`/rider/deliveries/${delivered.created.id}/deliver`)).status).toBe(200);
    const cancelled = await acceptedDelivery();
    expect((await api(stack.baseUrl, cancelled.partner.liveKey).post(`/partner/deliveries/${cancelled.created.id}/cancel`)).status).toBe(200);

    // Both riders ride on to their next jobs.
    await moveRider(delivered.riderApi, { lat: 5.7001, lng: -0.3002 });
    await moveRider(cancelled.riderApi, { lat: 5.6001, lng: -0.2502 });

    for (const [{ created }, status] of [[delivered, 'delivered'], [cancelled, 'cancelled']] as const) {
      const { body: view } = await track(created.id);
      expect(view.status).toBe(status);
      expect(view.rider).toEqual({ name: 'Kwame B.', vehicle: 'Motorbike', rating: 4.8, lat: null, lng: null });
      expect(view.eta_min).toBeNull();
    }
  });

  it('answers an unchanged view from kept bytes identical to the first answer, headers included', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const created = await book(stack.baseUrl, partner.liveKey);
    const read = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${stack.baseUrl}/api/v1${path}`, { headers });
      const { status } = res;
      return { status, type: res.headers.get('content-type'), cache: res.headers.get('cache-control'), etag: res.headers.get('etag'), body: await res.text() };
    };
    for (const [path, headers] of [
      [`/track/${created.id}/public`, {}],
      [`/partner/deliveries/${created.id}`, { Authorization: `Bearer ${partner.liveKey}` }],
    ] as const) {
      const first = await read(path, headers);
      const again = await read(path, headers);
      expect(first.status).toBe(200);
      expect(again).toEqual(first);
      expect(again.type).toBe('application/json; charset=utf-8');
      expect(again.etag).toMatch(/^"[\w-]{27}"$/);
      expect(JSON.parse(again.body).status).toBe('pending');
    }
  });

  it('places each ping in the very next read from the kept view, and builds the view again only when the delivery changes', async () => {
    const { partner, riderApi, created } = await acceptedDelivery({ additional_stops: [stopBody()] });
    // The debit's outcome changes the delivery (and its version) by itself.
    await eventually(
      async () => (await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${created.id}`)).body.payment_status !== 'pending',
      10_000,
      'the debit to settle',
    );
    await track(created.id);
    const built = await viewsBuilt('tracking');

    for (const at of [ACCRA.osu, ACCRA.legon, { lat: 5.6, lng: -0.18 }]) {
      await moveRider(riderApi, at);
      const { body: view } = await track(created.id);
      expect(view.rider).toMatchObject(at);
      expect(view.eta_min).toEqual(expect.any(Number));
    }
    expect(await viewsBuilt('tracking')).toBe(built);

    expect((await riderApi.post(`/rider/deliveries/${created.id}/pickup`)).status).toBe(200);
    expect((await track(created.id)).body.status).toBe('picked_up');
    expect(await viewsBuilt('tracking')).toBe(built + 1);
    await moveRider(riderApi, ACCRA.osu);
    expect((await track(created.id)).body.rider).toMatchObject(ACCRA.osu);
    expect(await viewsBuilt('tracking')).toBe(built + 1);
  });

  it('answers If-None-Match with 304 and no body, from either API process, until the rider moves or the delivery changes', async () => {
    const { riderApi, created } = await acceptedDelivery();
    const conditional = async (etag: string, base = stack.baseUrl) => {
      const res = await api(base).get(`/track/${created.id}/public`, { 'If-None-Match': etag });
      return { status: res.status, etag: res.headers.get('etag') as string, cache: res.headers.get('cache-control'), body: res.body };
    };
    const first = await track(created.id);
    const etag = first.headers.get('etag') as string;

    for (const base of [stack.baseUrl, second.baseUrl]) expect(await conditional(etag, base)).toEqual({ status: 304, etag, cache: 'no-store', body: null });

    await moveRider(riderApi, ACCRA.osu);
    const moved = await conditional(etag);
    expect(moved).toMatchObject({ status: 200, cache: 'no-store', body: { rider: ACCRA.osu } });
    expect(moved.etag).not.toBe(etag);
    expect((await conditional(moved.etag, second.baseUrl)).status).toBe(304);

    expect((await riderApi.post(`/rider/deliveries/${created.id}/pickup`)).status).toBe(200);
    const pickedUp = await conditional(moved.etag);
    expect(pickedUp).toMatchObject({ status: 200, body: { status: 'picked_up' } });
    expect(pickedUp.etag).not.toBe(moved.etag);

    // A page on another origin may read the tag to send it back.
    const crossOrigin = await api(stack.baseUrl).get(`/track/${created.id}/public`, { Origin: 'https://shop.example.com' });
    expect(crossOrigin.headers.get('access-control-expose-headers')).toContain('ETag');
  });

  it('shows every change on the very next read, however often the unchanged view was read before', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await makeRider(stack.orm, ACCRA.makola, 'Kwame Asante Boateng');
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });
    const riderApi = api(stack.baseUrl, rider.riderToken);
    const partnerApi = api(stack.baseUrl, partner.liveKey);
    // Unchanged reads are answered from kept bytes; each change must show at once, on both views.
    const pollBoth = async () => {
      for (let i = 0; i < 3; i++) {
        expect((await track(created.id)).status).toBe(200);
        expect((await partnerApi.get(`/partner/deliveries/${created.id}`)).status).toBe(200);
      }
    };
    await pollBoth();
    await eventually(async () => (await riderApi.get('/rider/offers')).body.some((o: any) => o.delivery_id === created.id), 10_000, 'offer');
    await riderApi.post(`/rider/deliveries/${created.id}/accept`);
    expect((await track(created.id)).body.status).toBe('accepted');
    expect((await partnerApi.get(`/partner/deliveries/${created.id}`)).body.rider.name).toBe('Kwame B.');

    await pollBoth();
    await moveRider(riderApi, ACCRA.osu);
    expect((await track(created.id)).body.rider).toMatchObject(ACCRA.osu);

    await pollBoth();
    await setRider(stack.orm, rider.riderId, { rating: 4.2 });
    expect((await partnerApi.get(`/partner/deliveries/${created.id}`)).body.rider.rating).toBe(4.2);

    await riderApi.post(`/rider/deliveries/${created.id}/pickup`);
    await riderApi.post(`/rider/deliveries/${created.id}/depart`);
    await pollBoth();
    expect((await riderApi.post(`/rider/deliveries/${created.id}/stops/0/complete`)).status).toBe(200);
    expect((await track(created.id)).body.stops[0].status).toBe('delivered');
    expect((await partnerApi.get(`/partner/deliveries/${created.id}`)).body.additional_stops[0].status).toBe('delivered');
  });

  it('answers 404 in the error envelope for an unknown id or one that is not a UUID', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', '12345']) {
      const res = await track(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String), details: {} } });
    }
  });

  it('answers cross-origin requests and preflights from any origin', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const created = await book(stack.baseUrl, partner.liveKey);
    const origin = { Origin: 'https://shop.example.com' };

    const get = await api(stack.baseUrl).get(`/track/${created.id}/public`, origin);
    const preflight = await fetch(`${stack.baseUrl}/api/v1/track/${created.id}/public`, {
      method: 'OPTIONS',
      headers: { ...origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'content-type' },
    });
    const unknown = await api(stack.baseUrl).get(`/track/${randomUUID()}/public`, origin);

    expect(get.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('grants no cross-origin access to the keyed partner API', async () => {
    const partner = await makePartner(stack.orm);
    const origin = { Origin: 'https://evil.example.com' };

    const get = await api(stack.baseUrl, partner.liveKey).get('/partner/deliveries', origin);
    const preflight = await fetch(`${stack.baseUrl}/api/v1/partner/deliveries`, {
      method: 'OPTIONS',
      headers: { ...origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' },
    });

    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
  });
});

describe('tracking ETA', () => {
  it('is null once the trip is over', async () => {
    const { riderApi, created } = await acceptedDelivery();
    await riderApi.post(`/rider/deliveries/${created.id}/pickup`);
    await riderApi.post(`/rider/deliveries/${created.id}/depart`);
    expect((await track(created.id)).body.eta_min).toEqual(expect.any(Number));
    await riderApi.post(`/rider/deliveries/${created.id}/deliver`);

    const done = await track(created.id);

    expect(done.body.status).toBe('delivered');
    expect(done.body.eta_min).toBeNull();
  });

  it('is computed once per 20 seconds however many people poll through two API processes', async () => {
    const { created } = await acceptedDelivery();
    const bases = [stack.baseUrl, second.baseUrl];
    const burst = () => Promise.all(Array.from({ length: 40 }, (_, i) => track(created.id, bases[i % 2])));
    // The accept stored a figure of its own: the polls find it due for a refresh.
    await ageEta(stack.orm, created.id, { seconds: 21 });
    const before = counting.calls;

    const firstRound = [];
    for (let wave = 0; wave < 5; wave++) firstRound.push(...(await burst()));
    const afterFirstRound = counting.calls - before;
    await ageEta(stack.orm, created.id, { seconds: 21 });
    const secondRound = [];
    for (let wave = 0; wave < 5; wave++) secondRound.push(...(await burst()));
    const afterSecondRound = counting.calls - before;

    expect([...firstRound, ...secondRound].every((r) => r.status === 200)).toBe(true);
    expect(afterFirstRound).toBe(1);
    expect(afterSecondRound).toBe(2);
    // Whoever lost the race was served the figure the winner stored.
    const settled = secondRound.slice(-40).map((r) => r.body.eta_min);
    expect(new Set(settled).size).toBe(1);
    expect(settled[0]).toEqual(expect.any(Number));
  });

  it('serves 32 polling connections for 10 seconds from a single ETA computation', async () => {
    const { created } = await acceptedDelivery();
    await track(created.id);
    await ageEta(stack.orm, created.id, { seconds: 21 });
    const before = counting.calls;

    // The load comes from a process of its own, so it does not share the server's event loop.
    const { stdout } = await execFileAsync(
      process.execPath,
      [require.resolve('autocannon/autocannon.js'), '--connections', '32', '--duration', '10', '--json', `${second.baseUrl}/api/v1/track/${created.id}/public`],
      { maxBuffer: 10_000_000 },
    );
    const result = JSON.parse(stdout) as AutocannonResult;
    // Requests the load left queued for a database connection finish before this one does.
    await track(created.id, second.baseUrl);
    const computations = counting.calls - before;

    process.stdout.write(
      `\nPublic view under polling (32 connections, ${result.duration} s, one API process): ` +
        `${Math.round(result.requests.average)} requests/s, ${result.requests.total} requests, ` +
        `latency p50 ${result.latency.p50} ms / p99 ${result.latency.p99} ms, ` +
        `${result.non2xx} non-2xx, ${result.errors} errors, ${computations} ETA computation(s)\n`,
    );
    expect(result['2xx']).toBeGreaterThan(0);
    expect(result.non2xx).toBe(0);
    expect(computations).toBe(1);
  }, 30_000);
});
