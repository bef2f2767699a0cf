import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, partnerClient } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { ACCRA, bookingBody, registerAccount, stopBody } from '../helpers/bookings';
import { deliveryIdsOf } from '../helpers/db-deliveries';
import { debitsOf } from '../helpers/db-payments';
import { idempotencyKeysOf } from '../helpers/db-requests';

/** Inside the service area, but some 100 km by road from Makola: past the limit this stack sets. */
const ADA = { lat: 5.8, lng: 0.6 };
const MAX_ROUTE_KM = 40;

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env: { MAX_ROUTE_KM: String(MAX_ROUTE_KM) } });
});
afterAll(async () => {
  await stack?.close();
});

const quoteBody = { pickup_lat: ACCRA.makola.lat, pickup_lng: ACCRA.makola.lng, dropoff_lat: ACCRA.airport.lat, dropoff_lng: ACCRA.airport.lng };

function expectRefusal(res: { status: number; body: any }, details: Record<string, string>): void {
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('bad_request');
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.details).toEqual(details);
}

describe('GET /partner/service-area', () => {
  it('gives the areas as a GeoJSON FeatureCollection of named polygons, to a key only', async () => {
    const partner = await makePartner(stack.orm);

    const res = await api(stack.baseUrl, partner.testKey).get('/partner/service-area');

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.type).toBe('FeatureCollection');
    expect(res.body.features.map((f: any) => [f.type, f.properties.name, f.geometry.type])).toEqual([
      ['Feature', 'Greater Accra', 'Polygon'],
      ['Feature', 'Kumasi', 'Polygon'],
    ]);
    const outline = res.body.features[0].geometry.coordinates[0] as number[][];
    expect(outline[0]).toEqual(outline.at(-1)); // closed, [longitude, latitude]
    expect(outline.every(([lng, lat]) => lng! > -1 && lng! < 1 && lat! > 5 && lat! < 6.5)).toBe(true);
    expect(await partnerClient(stack.baseUrl, partner.liveKey).serviceArea.get()).toEqual(res.body);

    const anonymous = await api(stack.baseUrl).get('/partner/service-area');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('unauthorized');
  });
});

describe('quotes outside the service area', () => {
  it('refuses a latitude typed ten times too large with 400, naming the point', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);

    expectRefusal(await client.post('/partner/quotes', { ...quoteBody, dropoff_lat: 56.052 }), { dropoff_lat: 'outside the service area' });
    expect((await client.post('/partner/quotes', quoteBody)).status).toBe(200);
  });

  it('names every point outside, a stop by its place in the list', async () => {
    const partner = await makePartner(stack.orm);

    const res = await api(stack.baseUrl, partner.liveKey).post('/partner/quotes', {
      ...quoteBody,
      pickup_lng: -2.096,
      additional_stops: [
        { dropoff_lat: ACCRA.osu.lat, dropoff_lng: ACCRA.osu.lng },
        { dropoff_lat: 6.4541, dropoff_lng: 3.3947 },
      ],
    });

    expectRefusal(res, { pickup_lat: 'outside the service area', 'additional_stops[1].dropoff_lat': 'outside the service area' });
  });

  it(`refuses a route longer than MAX_ROUTE_KM by road, though each point is inside`, async () => {
    const partner = await makePartner(stack.orm);

    const res = await api(stack.baseUrl, partner.liveKey).post('/partner/quotes', { ...quoteBody, dropoff_lat: ADA.lat, dropoff_lng: ADA.lng });

    expectRefusal(res, { route: `longer than ${MAX_ROUTE_KM} km` });
  });
});

describe('bookings outside the service area', () => {
  it('refuse a mistyped drop-off with 400 and save nothing; the same Idempotency-Key then books the corrected body', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);

    const refused = await client.post('/partner/deliveries', bookingBody({ dropoff_lat: 56.052 }), { 'Idempotency-Key': 'order-56' });

    expectRefusal(refused, { dropoff_lat: 'outside the service area' });
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toEqual([]);
    await eventually(async () => (await idempotencyKeysOf(stack.orm, partner.partnerId)).length === 0, 5_000, 'the key let go of');

    const booked = await client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'order-56' });

    expect(booked.status).toBe(201);
    expect(booked.headers.get('idempotent-replayed')).toBeNull();
    expect(booked.body.dropoff_lat).toBe(ACCRA.airport.lat);
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toEqual([booked.body.id]);
    // The one debit is the corrected booking's: the refused one had nothing to debit.
    const debits = await eventually(async () => {
      const found = await debitsOf(stack.orm, await deliveryIdsOf(stack.orm, partner.partnerId));
      return found.length > 0 && found;
    }, 15_000, 'the debit of the booking');
    expect(debits.map((d) => d.delivery_id)).toEqual([booked.body.id]);
    await client.post(`/partner/deliveries/${booked.body.id}/cancel`);
  });

  it('refuse a stop outside, named by its place in the list, and a route past MAX_ROUTE_KM, saving nothing', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const client = api(stack.baseUrl, partner.testKey);

    const stopOutside = await client.post(
      '/partner/deliveries',
      bookingBody({ additional_stops: [stopBody(), stopBody({ dropoff_lat: 5.556, dropoff_lng: 1.823 })] }),
    );
    const tooLong = await client.post('/partner/deliveries', bookingBody({ dropoff_lat: ADA.lat, dropoff_lng: ADA.lng }), { 'Idempotency-Key': 'order-ada' });

    expectRefusal(stopOutside, { 'additional_stops[1].dropoff_lat': 'outside the service area' });
    expectRefusal(tooLong, { route: `longer than ${MAX_ROUTE_KM} km` });
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toEqual([]);
    await eventually(async () => (await idempotencyKeysOf(stack.orm, partner.partnerId)).length === 0, 5_000, 'the key let go of');
  });
});
