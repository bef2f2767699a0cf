import { ageEta } from '../helpers/db-deliveries';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, registerAccount, stopBody } from '../helpers/bookings';
import { fakeMapbox, fakeOsrm, fakePhoton, type FakeService } from '../fakes/map-services';
import { StraightLineRouting } from '../../integrations/routing';
import { distanceKm } from '../../domain/pricing';

const TOKEN = 'pk.eyJ1IjoidGVzdCJ9.fake-mapbox-token';
/** Road figures the fakes answer per leg, unlike anything the straight-line estimate gives. */
const ROAD_LEG = { distance: 7654.3, duration: 900 };
const TRAFFIC_LEG = { distance: 7000, duration: 600 };
const LAGOS = { lat: 6.4541, lng: 3.3947 };

let osrm: FakeService;
let mapbox: FakeService;
let photon: FakeService;
let stack: TestStack;
beforeAll(async () => {
  osrm = await fakeOsrm(ROAD_LEG);
  mapbox = await fakeMapbox(TRAFFIC_LEG, TOKEN);
  photon = await fakePhoton([
    { name: 'Makola Market', lat: ACCRA.makola.lat, lng: ACCRA.makola.lng, district: 'Central Accra', city: 'Accra', state: 'Greater Accra Region' },
    { name: 'Makola Shopping Mall', lat: LAGOS.lat, lng: LAGOS.lng, city: 'Lagos' },
  ]);
  stack = await startTestStack({
    env: {
      ROUTING_PROVIDER: 'osrm',
      OSRM_URL: osrm.url,
      ETA_PROVIDER: 'mapbox',
      MAPBOX_URL: mapbox.url,
      MAPBOX_TOKEN: TOKEN,
      PLACES_PROVIDER: 'photon',
      PHOTON_URL: photon.url,
    },
  });
});
beforeEach(() => {
  for (const service of [osrm, mapbox, photon]) {
    service.behaviour = 'ok';
    service.calls.length = 0;
  }
});
afterAll(async () => {
  await stack?.close();
  await Promise.all([osrm, mapbox, photon].map((service) => service?.close()));
});

const route = { pickup_lat: ACCRA.makola.lat, pickup_lng: ACCRA.makola.lng, dropoff_lat: ACCRA.airport.lat, dropoff_lng: ACCRA.airport.lng };

async function estimatedKm(points: { lat: number; lng: number }[]): Promise<number> {
  return distanceKm((await new StraightLineRouting().route(points)).distanceMeters);
}

describe('road distance from OSRM', () => {
  it('prices a quote on the road distance OSRM gives', async () => {
    const partner = await makePartner(stack.orm);

    const quote = await api(stack.baseUrl, partner.liveKey).post('/partner/quotes', route);

    expect(quote.status).toBe(200);
    expect(quote.body.distance_km).toBe(7.65);
    expect(quote.body.distance_estimated).toBe(false);
    expect(osrm.calls).toHaveLength(1);
    expect(osrm.calls[0]!.path).toBe('/route/v1/driving/-0.2096,5.5497;-0.1668,5.6052');
  });

  it('prices a booking over the whole route, stop included', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);

    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });

    expect(created.distance_km).toBe(15.31);
    expect(osrm.calls.at(-1)!.path).toBe('/route/v1/driving/-0.2096,5.5497;-0.1823,5.556;-0.1668,5.6052');
  });

  it.each([
    ['answers an error', 'error' as const],
    ['does not answer', 'hang' as const],
  ])('falls back to the estimate, flagged as such, when OSRM %s', async (_what, behaviour) => {
    const partner = await makePartner(stack.orm);
    osrm.behaviour = behaviour;

    const quote = await api(stack.baseUrl, partner.liveKey).post('/partner/quotes', route);

    expect(quote.status).toBe(200);
    expect(quote.body.distance_estimated).toBe(true);
    expect(quote.body.distance_km).toBe(await estimatedKm([ACCRA.makola, ACCRA.airport]));
    expect(osrm.calls).toHaveLength(1);
  });
});

describe('tracking ETA from Mapbox driving-traffic', () => {
  /** A live delivery with one earlier stop, on its way, the rider at `at`. */
  async function onTheWay(at: { lat: number; lng: number }) {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await makeRider(stack.orm, ACCRA.makola);
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });
    const riderApi = api(stack.baseUrl, rider.riderToken);
    await eventually(async () => (await riderApi.get('/rider/offers')).body.some((o: any) => o.delivery_id === created.id), 10_000, 'offer');
    for (const step of ['accept', 'pickup', 'depart']) {
      expect((await riderApi.post(`/rider/deliveries/${created.id}/${step}`)).status).toBe(200);
    }
    expect((await riderApi.post('/rider/location', at)).status).toBe(204);
    // Each step into a live status stored an ETA of its own: age it, so the tracking read asks
    // again from where the rider is now, and count only that call.
    await ageEta(stack.orm, created.id, { seconds: 21 });
    mapbox.calls.length = 0;
    return created.id as string;
  }

  it('counts traffic-aware minutes from the rider through the stop to the drop', async () => {
    const at = { lat: 5.551, lng: -0.2 };
    const id = await onTheWay(at);

    const view = await api(stack.baseUrl).get(`/track/${id}/public`);

    expect(view.body.stops[0].eta_min).toBe(10);
    expect(view.body.eta_min).toBe(20);
    expect(mapbox.calls).toHaveLength(1);
    expect(mapbox.calls[0]!.path).toBe('/directions/v5/mapbox/driving-traffic/-0.2,5.551;-0.1823,5.556;-0.1668,5.6052');
    expect(mapbox.calls[0]!.query.get('access_token')).toBe(TOKEN);
  });

  it('keeps giving an ETA from the offline estimate when Mapbox fails', async () => {
    const at = { lat: 5.551, lng: -0.2 };
    const id = await onTheWay(at);
    mapbox.behaviour = 'error';

    const view = await api(stack.baseUrl).get(`/track/${id}/public`);

    const { legSeconds } = await new StraightLineRouting().legs([at, ACCRA.osu, ACCRA.airport]);
    expect(mapbox.calls).toHaveLength(1);
    expect(view.status).toBe(200);
    expect(view.body.stops[0].eta_min).toBe(Math.ceil(legSeconds[0]! / 60));
    expect(view.body.eta_min).toBe(Math.ceil((legSeconds[0]! + legSeconds[1]!) / 60));
  });
});

describe('place search from Photon', () => {
  it('suggests places in Ghana from Photon and resolves them without a second call', async () => {
    const suggestions = await api(stack.baseUrl).get('/places/autocomplete?q=makola');

    expect(suggestions.status).toBe(200);
    expect(suggestions.body).toEqual([
      { place_id: expect.stringMatching(/^photon:/), title: 'Makola Market', subtitle: 'Central Accra, Accra, Greater Accra Region' },
    ]);
    const search = photon.calls[0]!;
    expect(search.path).toBe('/api');
    expect(search.query.get('q')).toBe('makola');
    expect(search.query.get('bbox')).toBe('-3.26,4.74,1.20,11.17');
    expect(search.query.has('lat') && search.query.has('lon')).toBe(true);

    const place = await api(stack.baseUrl).get(`/places/resolve?place_id=${encodeURIComponent(suggestions.body[0].place_id)}`);

    expect(place.status).toBe(200);
    expect(place.body).toEqual({ address: 'Makola Market, Central Accra, Accra, Greater Accra Region', ...ACCRA.makola });
    expect(photon.calls).toHaveLength(1);
  });

  it.each([
    ['answers an error', 'error' as const],
    ['does not answer', 'hang' as const],
  ])('answers from the bundled gazetteer when Photon %s', async (_what, behaviour) => {
    photon.behaviour = behaviour;

    const suggestions = await api(stack.baseUrl).get('/places/autocomplete?q=makola');

    expect(suggestions.status).toBe(200);
    expect(suggestions.body[0]).toEqual({ place_id: 'accra-makola-market', title: 'Makola Market', subtitle: expect.any(String) });
    const place = await api(stack.baseUrl).get('/places/resolve?place_id=accra-makola-market');
    expect(place.body).toEqual({ address: expect.stringContaining('Makola Market'), ...ACCRA.makola });
    expect(photon.calls).toHaveLength(1);
  });
});
