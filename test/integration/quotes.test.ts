import { startTestStack, type TestStack } from '../helpers/stack';
import { api } from '../helpers/http';
import { ACCRA, bookingBody, livePartner, registerAccount, stopBody } from '../helpers/bookings';
import { deliveryIdsOf } from '../helpers/db-deliveries';
import { StraightLineRouting, type RouteSummary, type RoutingProvider } from '../../integrations/routing';
import type { LatLng } from '../../domain/geo';

/** The offline estimate, with roads that can get longer between a quote and its booking. */
class StretchableRoads implements RoutingProvider {
  stretch = 1;
  private readonly inner = new StraightLineRouting();
  async route(points: LatLng[]): Promise<RouteSummary> {
    const summary = await this.inner.route(points);
    return { ...summary, distanceMeters: summary.distanceMeters * this.stretch };
  }
}

const roads = new StretchableRoads();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let stack: TestStack;
/** A second API process on the same database whose quotes hold for one second. */
let shortLived: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ appOverrides: { routing: roads } });
  shortLived = await startTestStack({
    env: { QUOTE_TTL_SECONDS: '1', TEMPORAL_TASK_QUEUE: stack.settings.temporalTaskQueue },
    withoutWorker: true,
    appOverrides: { routing: roads },
  });
});
afterAll(async () => {
  await shortLived?.close();
  await stack?.close();
});
beforeEach(() => {
  roads.stretch = 1;
});

const route = { pickup_lat: ACCRA.makola.lat, pickup_lng: ACCRA.makola.lng, dropoff_lat: ACCRA.airport.lat, dropoff_lng: ACCRA.airport.lng };
const withStop = { ...route, additional_stops: [{ dropoff_lat: ACCRA.osu.lat, dropoff_lng: ACCRA.osu.lng }] };

async function quote(key: string, body: object = withStop, base = stack.baseUrl) {
  const res = await api(base, key).post('/partner/quotes', body);
  expect(res.status).toBe(200);
  return res.body;
}

/** A booking of the quoted route (one stop at Osu), with `overrides`. */
const bookQuoted = (key: string, overrides: Record<string, unknown>) =>
  api(stack.baseUrl, key).post('/partner/deliveries', bookingBody({ additional_stops: [stopBody()], ...overrides }));

function expectRefusal(res: { status: number; body: any }, details: Record<string, unknown>) {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: { code: 'bad_request', message: expect.any(String), details } });
}

describe('a quote that holds', () => {
  it('answers a quote with its id and when it stops holding, 15 minutes on', async () => {
    const partner = await livePartner(stack);
    const before = Date.now();

    const given = await quote(partner.liveKey);

    expect(given.quote_id).toMatch(UUID);
    const expiresAt = Date.parse(given.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 900_000 - 2_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 900_000 + 2_000);
    expect(given.expires_at).toMatch(/Z$/);
    expect(given).toMatchObject({ base_fare: expect.any(Number), distance_km: expect.any(Number), total_fare: expect.any(Number) });
  });

  it('books at the quoted fare when the route would now be priced higher, and at today’s price without the quote', async () => {
    const partner = await livePartner(stack);
    const given = await quote(partner.liveKey);
    roads.stretch = 1.5;

    const quoted = await bookQuoted(partner.liveKey, { quote_id: given.quote_id });
    const unquoted = await bookQuoted(partner.liveKey, {});

    expect(quoted.status).toBe(201);
    const fare = (d: any) => ({ base_fare: d.base_fare, distance_km: d.distance_km, distance_fee: d.distance_fee, service_fee: d.service_fee, total_fare: d.total_fare });
    expect(fare(quoted.body)).toEqual(fare(given));
    // Read back as the partner will poll it.
    expect(fare((await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${quoted.body.id}`)).body)).toEqual(fare(given));
    expect(unquoted.status).toBe(201);
    expect(unquoted.body.total_fare).toBeGreaterThan(given.total_fare);
  });

  it('refuses a quote that has expired, and saves nothing', async () => {
    const partner = await livePartner(stack);
    const given = await quote(partner.liveKey, withStop, shortLived.baseUrl);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(given.expires_at) - Date.now()) + 300));

    const res = await bookQuoted(partner.liveKey, { quote_id: given.quote_id });

    expectRefusal(res, { quote_id: 'has expired' });
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toEqual([]);
  });

  it('refuses a route whose pickup, stops or drop-off differ from the quoted ones, naming each field, and saves nothing', async () => {
    const partner = await livePartner(stack);
    const { quote_id } = await quote(partner.liveKey);

    expectRefusal(await bookQuoted(partner.liveKey, { quote_id, dropoff_lat: ACCRA.legon.lat, dropoff_lng: ACCRA.legon.lng }), {
      dropoff_lat: 'differs from the quoted route',
      dropoff_lng: 'differs from the quoted route',
    });
    expectRefusal(await bookQuoted(partner.liveKey, { quote_id, additional_stops: [stopBody({ dropoff_lng: -0.1824 })] }), {
      'additional_stops[0].dropoff_lng': 'differs from the quoted route',
    });
    expectRefusal(await bookQuoted(partner.liveKey, { quote_id, pickup_lat: 5.5498 }), { pickup_lat: 'differs from the quoted route' });
    expectRefusal(await bookQuoted(partner.liveKey, { quote_id, additional_stops: [] }), {
      additional_stops: 'the quote was for 1 additional stop, not 0',
    });
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toEqual([]);
  });

  it('refuses another partner’s quote, a quote of the other mode and an unknown one alike', async () => {
    const partner = await livePartner(stack);
    await registerAccount(stack.baseUrl, partner.testKey);
    const other = await livePartner(stack);
    const othersQuote = await quote(other.liveKey);
    const testQuote = await quote(partner.testKey);

    for (const quoteId of [othersQuote.quote_id, testQuote.quote_id, '00000000-0000-4000-8000-000000000000']) {
      expectRefusal(await bookQuoted(partner.liveKey, { quote_id: quoteId }), { quote_id: 'is not a quote of this account in this mode' });
    }
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toEqual([]);
    // Each quote still holds for its own account and mode.
    expect((await bookQuoted(partner.testKey, { quote_id: testQuote.quote_id })).status).toBe(201);
  });
});
