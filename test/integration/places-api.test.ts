import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const open = () => api(stack.baseUrl);

describe('place search over HTTP (the bundled gazetteer)', () => {
  it('suggests places for a half-typed, misspelt name without any key', async () => {
    const res = await open().get('/places/autocomplete?q=makoll');

    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body.length).toBeLessThanOrEqual(10);
    for (const suggestion of res.body) {
      expect(Object.keys(suggestion).sort()).toEqual(['place_id', 'subtitle', 'title']);
    }
    expect(res.body[0]).toEqual({ place_id: 'accra-makola-market', title: 'Makola Market', subtitle: expect.any(String) });
  });

  it('resolves a suggestion to an address and coordinates a booking accepts', async () => {
    const [pickup] = (await open().get('/places/autocomplete?q=makola market')).body;
    const [dropoff] = (await open().get('/places/autocomplete?q=osu')).body;
    const from = await open().get(`/places/resolve?place_id=${encodeURIComponent(pickup.place_id)}`);
    const to = await open().get(`/places/resolve?place_id=${encodeURIComponent(dropoff.place_id)}`);
    expect(from.status).toBe(200);
    expect(from.body).toEqual({ address: expect.stringContaining('Makola'), lat: 5.5497, lng: -0.2096 });

    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const quote = await api(stack.baseUrl, partner.testKey).post('/partner/quotes', {
      pickup_lat: from.body.lat,
      pickup_lng: from.body.lng,
      dropoff_lat: to.body.lat,
      dropoff_lng: to.body.lng,
    });
    const created = await book(stack.baseUrl, partner.testKey, {
      pickup_address: from.body.address,
      pickup_lat: from.body.lat,
      pickup_lng: from.body.lng,
      dropoff_address: to.body.address,
      dropoff_lat: to.body.lat,
      dropoff_lng: to.body.lng,
    });

    expect(quote.status).toBe(200);
    expect(created.pickup_address).toBe(from.body.address);
    // One pricing function for both: the booking costs what the quote said, part by part.
    const fare = ({ distance_km, base_fare, distance_fee, service_fee, total_fare }: Record<string, unknown>) =>
      ({ distance_km, base_fare, distance_fee, service_fee, total_fare });
    expect(fare(created)).toEqual(fare(quote.body));
  });

  it('answers 404 in the envelope for a place id it never gave out', async () => {
    for (const id of ['no-such-place', 'photon:abc.def']) {
      const res = await open().get(`/places/resolve?place_id=${encodeURIComponent(id)}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String), details: {} } });
    }
  });

  it('takes a query however a client writes it: a space as `+`, brackets and other reserved characters unencoded', async () => {
    const encoded = await open().get('/places/autocomplete?q=osu%20castle');
    expect(encoded.status).toBe(200);
    expect(encoded.body[0].place_id).toBe('accra-osu-castle');

    // URLSearchParams and HTML forms write a space as `+`; encodeURIComponent leaves `!*()` as they are.
    for (const query of [new URLSearchParams({ q: 'osu castle' }).toString(), 'q=osu+castle!', 'q=(osu+castle)', 'q=osu*castle']) {
      const res = await open().get(`/places/autocomplete?${query}`);
      expect([query, res.status]).toEqual([query, 200]);
      expect(res.body[0].place_id).toBe('accra-osu-castle');
    }

    // A place id sent back exactly as it was given, not encoded: unknown here, but not malformed.
    const lookup = await open().get('/places/resolve?place_id=photon:abc.def');
    expect(lookup.status).toBe(404);
    expect(lookup.body.error.code).toBe('not_found');
  });

  it('reads a page size written with `+` for a space like the same size encoded', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.testKey);
    expect((await client.get('/partner/deliveries?limit=%201&offset=%200')).status).toBe(200);
    expect((await client.get('/partner/deliveries?limit=+1&offset=+0')).status).toBe(200);
    expect((await client.get('/partner/deliveries?limit=1+1')).status).toBe(400);
  });

  it('refuses a search or a lookup with nothing to look for', async () => {
    const search = await open().get('/places/autocomplete');
    const lookup = await open().get('/places/resolve');

    expect(search.status).toBe(400);
    expect(search.body.error.code).toBe('bad_request');
    expect(search.body.error.details).toHaveProperty('q');
    expect(lookup.status).toBe(400);
    expect(lookup.body.error.details).toHaveProperty('place_id');
  });
});
