import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, bookingBody, registerAccount, SANDBOX, stopBody } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { startTestReceiver, type TestReceiver } from '../helpers/webhook-test-receiver';

/**
 * The partner contract's tables, written down here as the contract states them, and checked
 * twice: against what a partner receives over HTTP, and against the document served at
 * /openapi.json, which partners generate clients from. Extra fields are allowed (the contract
 * leaves them open); a missing field, a wrong type or a value outside a listed set is not.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** ISO 8601 in UTC: `Z` in answers, the `+00:00` offset form in callbacks. */
const UTC_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)$/;

/** The types the contract's tables use: how a value of each looks, and the JSON Schema type that documents it. */
const KINDS = {
  uuid: { is: (v: unknown) => typeof v === 'string' && UUID.test(v), type: 'string' },
  string: { is: (v: unknown) => typeof v === 'string', type: 'string' },
  number: { is: (v: unknown) => typeof v === 'number' && Number.isFinite(v), type: 'number' },
  boolean: { is: (v: unknown) => typeof v === 'boolean', type: 'boolean' },
  timestamp: { is: (v: unknown) => typeof v === 'string' && UTC_TIME.test(v) && !Number.isNaN(Date.parse(v)), type: 'string' },
  array: { is: (v: unknown) => Array.isArray(v), type: 'array' },
  object: { is: (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v), type: 'object' },
};

/** A field's type as a table gives it: `?` adds "or null"; a list names the values allowed. */
type Kind = keyof typeof KINDS | `${keyof typeof KINDS}?` | readonly string[];
type Table = Record<string, Kind>;
const kindOf = (kind: string) => KINDS[kind.replace('?', '') as keyof typeof KINDS];

const STATUSES = ['pending', 'accepted', 'picked_up', 'in_transit', 'delivered', 'cancelled', 'expired'] as const;

/** "Resources and their fields". */
const DELIVERY: Table = {
  id: 'uuid',
  status: STATUSES,
  pickup_address: 'string',
  dropoff_address: 'string',
  package_size: ['small', 'medium', 'large'],
  recipient_name: 'string',
  recipient_phone: 'string',
  rider_id: 'uuid?',
  base_fare: 'number',
  distance_km: 'number',
  distance_fee: 'number',
  service_fee: 'number',
  total_fare: 'number',
  payment_method: ['gateway'],
  payment_status: ['pending', 'paid', 'failed'],
  verification_method: ['none', 'otp', 'photo'],
  created_at: 'timestamp',
  events: 'array',
};
const DELIVERY_EVENT: Table = { status: STATUSES, created_at: 'timestamp' };
const QUOTE: Table = { base_fare: 'number', distance_km: 'number', distance_fee: 'number', service_fee: 'number', total_fare: 'number' };
const ACCOUNT: Table = {
  id: 'uuid',
  provider: ['network_a', 'network_b', 'network_c'],
  phone: 'string',
  account_name: 'string',
  is_default: 'boolean',
  created_at: 'timestamp',
};
const WEBHOOK_CONFIG: Table = { webhook_url: 'string', webhook_secret: 'string' };
const PLACE_SUGGESTION: Table = { place_id: 'string', title: 'string', subtitle: 'string' };
const RESOLVED_PLACE: Table = { address: 'string', lat: 'number', lng: 'number' };
const TRACKING: Table = {
  reference: 'string',
  status: STATUSES,
  package_size: 'string',
  pickup_address: 'string',
  pickup_lat: 'number',
  pickup_lng: 'number',
  dropoff_address: 'string',
  dropoff_lat: 'number',
  dropoff_lng: 'number',
  recipient_name: 'string',
  eta_min: 'number?',
  rider: 'object?',
  stops: 'array',
  events: 'array',
};
const TRACKING_RIDER: Table = { name: 'string', vehicle: 'string?', rating: 'number?', lat: 'number?', lng: 'number?' };
const TRACKING_STOP: Table = { dropoff_lat: 'number', dropoff_lng: 'number', status: 'string', eta_min: 'number?' };
const TRACKING_EVENT: Table = { status: STATUSES, lat: 'number?', lng: 'number?', created_at: 'timestamp' };
/** "Callback shape". */
const CALLBACK: Table = {
  event: ['delivery.accepted', 'delivery.picked_up', 'delivery.in_transit', 'delivery.delivered', 'delivery.cancelled', 'delivery.expired'],
  delivery_id: 'uuid',
  status: STATUSES,
  occurred_at: 'timestamp',
  data: 'object',
};
/** "Errors". */
const ERROR: Table = { code: 'string', message: 'string' };

function fits(value: unknown, kind: Kind): boolean {
  if (typeof kind !== 'string') return kind.includes(value as string);
  return (kind.endsWith('?') && value === null) || kindOf(kind).is(value);
}

/** The fields of `table` that `value` lacks or carries with the wrong type, as `field: value`. */
function misfits(value: Record<string, unknown>, table: Table): string[] {
  return Object.entries(table)
    .filter(([field, kind]) => !(field in value) || !fits(value[field], kind))
    .map(([field]) => `${field}: ${JSON.stringify(value[field])}`);
}

/** The misfits of every entry of a list, each led by its index; the callers check the list's length. */
function misfitsOfEach(values: Record<string, unknown>[], table: Table): string[] {
  return values.flatMap((value, i) => misfits(value, table).map((misfit) => `[${i}] ${misfit}`));
}

type Json = Record<string, any>;
let openapi: Json;

function resolve(schema: Json): Json {
  const ref = schema.$ref as string | undefined;
  return ref ? resolve(openapi.components.schemas[ref.replace('#/components/schemas/', '')]) : schema;
}

/** The JSON schema of an answer in /openapi.json, an array's items when the answer is a list. */
function answerSchema(method: string, path: string, status: string): Json {
  const operation = openapi.paths[path]?.[method];
  expect(operation?.responses?.[status]).toBeDefined();
  const schema = resolve(operation.responses[status].content['application/json'].schema);
  return schema.type === 'array' ? resolve(schema.items) : schema;
}

/** The object schema a field holds: itself, an array's items, or the object of an "object or null". */
function fieldSchema(schema: Json, field: string): Json {
  const property = resolve(schema.properties[field]);
  if (property.type === 'array') return resolve(property.items);
  return property.anyOf ? resolve(property.anyOf.map(resolve).find((s: Json) => s.type === 'object')) : property;
}

/** The fields of `table` the document does not promise: missing, optional, or of another type or set. */
function undocumented(schema: Json, table: Table): string[] {
  const required = new Set<string>(schema.required ?? []);
  return Object.entries(table).flatMap(([field, kind]) => {
    const property = schema.properties?.[field] && resolve(schema.properties[field]);
    if (!property || !required.has(field)) return [`${field}: not required`];
    const types = new Set<string>([property.type, ...(property.anyOf ?? []).map((s: Json) => resolve(s).type)].flat().filter(Boolean));
    if (typeof kind !== 'string') {
      const listed = property.enum ?? (property.anyOf ?? []).map((s: Json) => s.const);
      return [...listed].sort().join() === [...kind].sort().join() ? [] : [`${field}: ${JSON.stringify(listed)}`];
    }
    const wanted = [kindOf(kind).type, ...(kind.endsWith('?') ? ['null'] : [])];
    return wanted.every((type) => types.has(type)) ? [] : [`${field}: ${[...types].join('|')}`];
  });
}

let stack: TestStack;
let receiver: TestReceiver;
beforeAll(async () => {
  stack = await startTestStack();
  receiver = await startTestReceiver();
  openapi = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as Json;
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

describe('the contract’s tables, as a partner receives them and as /openapi.json documents them', () => {
  it('Quote: POST /partner/quotes answers 200 with each field of the table', async () => {
    const partner = await makePartner(stack.orm);
    const res = await api(stack.baseUrl, partner.liveKey).post('/partner/quotes', {
      pickup_lat: ACCRA.makola.lat,
      pickup_lng: ACCRA.makola.lng,
      dropoff_lat: ACCRA.airport.lat,
      dropoff_lng: ACCRA.airport.lng,
    });
    expect(res.status).toBe(200);
    expect(misfits(res.body, QUOTE)).toEqual([]);
    expect(undocumented(answerSchema('post', '/partner/quotes', '200'), QUOTE)).toEqual([]);
  });

  it('Delivery: the booking, the fetch, the list and the accepted callback carry each field of the table, and its trail each field of an entry', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    await registerAccount(stack.baseUrl, partner.liveKey);
    await receiver.subscribe(stack.baseUrl, partner.liveKey);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Kwesi Owusu');

    const booked = await client.post('/partner/deliveries', bookingBody({ verification_method: 'none' }));
    expect(booked.status).toBe(201);
    // Booking rule 5.
    expect(booked.body).toMatchObject({ status: 'pending', rider_id: null, payment_status: 'pending' });
    expect(misfits(booked.body, DELIVERY)).toEqual([]);
    expect(undocumented(answerSchema('post', '/partner/deliveries', '201'), DELIVERY)).toEqual([]);

    await rider.take(booked.body.id);
    const fetched = await client.get(`/partner/deliveries/${booked.body.id}`);
    expect(fetched.status).toBe(200);
    expect(misfits(fetched.body, DELIVERY)).toEqual([]);
    expect(fetched.body.rider_id).toBe(rider.riderId);
    expect(fetched.body.events.map((e: Json) => e.status)).toEqual(['pending', 'accepted']);
    expect(misfitsOfEach(fetched.body.events, DELIVERY_EVENT)).toEqual([]);
    const documented = answerSchema('get', '/partner/deliveries/{id}', '200');
    expect(undocumented(documented, DELIVERY)).toEqual([]);
    expect(undocumented(fieldSchema(documented, 'events'), DELIVERY_EVENT)).toEqual([]);

    const listed = await client.get('/partner/deliveries');
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.body)).toBe(true);
    expect(misfits(listed.body[0], DELIVERY)).toEqual([]);
    expect(undocumented(answerSchema('get', '/partner/deliveries', '200'), DELIVERY)).toEqual([]);

    const [accepted] = await eventually(async () => {
      const arrivals = receiver.arrivalsFor(booked.body.id);
      return arrivals.length > 0 && arrivals;
    }, 15_000, 'the delivery.accepted callback');
    expect(accepted!.headers['content-type']).toBe('application/json');
    expect(accepted!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(accepted!.validSignature).toBe(true);
    expect(misfits(accepted!.body as unknown as Json, CALLBACK)).toEqual([]);
    expect(accepted!.body).toMatchObject({ event: 'delivery.accepted', delivery_id: booked.body.id, status: 'accepted' });
    expect(misfits(accepted!.body.data, DELIVERY)).toEqual([]);
    const callback = resolve(openapi.webhooks.deliveryStatusChanged.post.requestBody.content['application/json'].schema);
    expect(undocumented(callback, CALLBACK)).toEqual([]);
    expect(undocumented(fieldSchema(callback, 'data'), DELIVERY)).toEqual([]);
  });

  it('Mobile Money account: registering answers 201 with each field of the table, the list carries them, default first', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    const first = await client.post('/partner/payment-methods', { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Shop', is_default: false });
    expect(first.status).toBe(201);
    expect(misfits(first.body, ACCOUNT)).toEqual([]);
    // Register rule 4: the first account is the default whatever is_default says.
    expect(first.body.is_default).toBe(true);
    const second = await client.post('/partner/payment-methods', { provider: 'network_b', phone: SANDBOX.networkB, account_name: 'Shop' });
    expect(second.status).toBe(201);
    const listed = await client.get('/partner/payment-methods');
    expect(listed.body.map((a: Json) => a.id)).toEqual([first.body.id, second.body.id]);
    expect(misfitsOfEach(listed.body, ACCOUNT)).toEqual([]);
    expect(undocumented(answerSchema('post', '/partner/payment-methods', '201'), ACCOUNT)).toEqual([]);
    expect(undocumented(answerSchema('get', '/partner/payment-methods', '200'), ACCOUNT)).toEqual([]);
  });

  it('Webhook configuration: PUT answers the URL and a secret; GET carries the URL and never the secret', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    const set = await client.put('/partner/webhook', { webhook_url: 'https://partner.example.com/hooks' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ webhook_url: 'https://partner.example.com/hooks', webhook_secret: expect.any(String) });
    const read = await client.get('/partner/webhook');
    expect(read.body.webhook_url).toBe('https://partner.example.com/hooks');
    expect(JSON.stringify(read.body)).not.toContain(set.body.webhook_secret);
    expect(undocumented(answerSchema('put', '/partner/webhook', '200'), WEBHOOK_CONFIG)).toEqual([]);
    const cleared = await client.put('/partner/webhook', { webhook_url: null });
    expect(cleared.status).toBe(200);
    expect((await client.get('/partner/webhook')).body.webhook_url).toBeNull();
  });

  it('Place suggestion and resolved place: both endpoints answer without a key', async () => {
    const open = api(stack.baseUrl);
    const suggestions = await open.get('/places/autocomplete?q=makola');
    expect(suggestions.status).toBe(200);
    expect(suggestions.body.length).toBeGreaterThan(0);
    expect(misfitsOfEach(suggestions.body, PLACE_SUGGESTION)).toEqual([]);
    const resolved = await open.get(`/places/resolve?place_id=${encodeURIComponent(suggestions.body[0].place_id)}`);
    expect(resolved.status).toBe(200);
    expect(misfits(resolved.body, RESOLVED_PLACE)).toEqual([]);
    expect(undocumented(answerSchema('get', '/places/autocomplete', '200'), PLACE_SUGGESTION)).toEqual([]);
    expect(undocumented(answerSchema('get', '/places/resolve', '200'), RESOLVED_PLACE)).toEqual([]);
  });

  it('Public tracking view: each field of the table, with its rider, stops and trail, to anyone from any origin', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Abena Pokua Darko');
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });
    await rider.take(created.id);
    expect((await rider.client.post('/rider/location', ACCRA.osu)).status).toBe(204);
    expect((await rider.pickup(created.id)).status).toBe(200);

    const res = await api(stack.baseUrl).get(`/track/${created.id}/public`, { Origin: 'https://shop.example.org' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(misfits(res.body, TRACKING)).toEqual([]);
    expect(res.body.reference).toMatch(new RegExp(`^[A-Z]+-${created.id.slice(0, 8).toUpperCase()}$`));
    expect(res.body.recipient_name).toBe('Ama M.');
    expect(misfits(res.body.rider, TRACKING_RIDER)).toEqual([]);
    expect(res.body.rider.name).toBe('Abena D.');
    expect(res.body.stops).toHaveLength(1);
    expect(misfits(res.body.stops[0], TRACKING_STOP)).toEqual([]);
    expect(res.body.events.map((e: Json) => e.status)).toEqual(['pending', 'accepted', 'picked_up']);
    expect(misfitsOfEach(res.body.events, TRACKING_EVENT)).toEqual([]);
    const documented = answerSchema('get', '/track/{id}/public', '200');
    expect(undocumented(documented, TRACKING)).toEqual([]);
    expect(undocumented(fieldSchema(documented, 'rider'), TRACKING_RIDER)).toEqual([]);
    expect(undocumented(fieldSchema(documented, 'stops'), TRACKING_STOP)).toEqual([]);
    expect(undocumented(fieldSchema(documented, 'events'), TRACKING_EVENT)).toEqual([]);

    // "An unknown id returns 404."
    expect((await api(stack.baseUrl).get('/track/00000000-0000-4000-8000-000000000000/public')).status).toBe(404);
  });

  it('Errors: the envelope of every known case, with the status and code the table gives', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    const expectEnvelope = (res: { status: number; body: Json }, status: number, code: string) => {
      expect(res.status).toBe(status);
      expect(misfits(res.body.error, ERROR)).toEqual([]);
      expect(res.body.error.details).toEqual(expect.any(Object));
      expect(res.body.error.code).toBe(code);
    };
    // Booking with no payment_method_id while no account is registered.
    expectEnvelope(await client.post('/partner/deliveries', bookingBody()), 400, 'bad_request');
    expect((await client.get('/partner/deliveries')).body).toEqual([]);
    // Registering a number that does not exist, or that belongs to another network.
    expectEnvelope(await client.post('/partner/payment-methods', { provider: 'network_a', phone: SANDBOX.missing, account_name: 'Shop' }), 400, 'bad_request');
    expectEnvelope(await client.post('/partner/payment-methods', { provider: 'network_a', phone: SANDBOX.networkB, account_name: 'Shop' }), 400, 'bad_request');
    expect((await client.get('/partner/payment-methods')).body).toEqual([]);
    // Cancelling past picked_up.
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Yaw Mensah');
    const created = await book(stack.baseUrl, partner.liveKey);
    await rider.take(created.id);
    expect((await rider.pickup(created.id)).status).toBe(200);
    expectEnvelope(await client.post(`/partner/deliveries/${created.id}/cancel`), 400, 'bad_request');
    expect((await client.get(`/partner/deliveries/${created.id}`)).body.status).toBe('picked_up');
    // The public tracking view of an unknown id.
    expectEnvelope(await api(stack.baseUrl).get('/track/00000000-0000-4000-8000-000000000000/public'), 404, 'not_found');
  });

  it('Endpoints and limits: every endpoint of the table is documented with its success status, and the limits with their values', () => {
    const endpoints: [string, string, string][] = [
      ['post', '/partner/quotes', '200'],
      ['post', '/partner/deliveries', '201'],
      ['get', '/partner/deliveries', '200'],
      ['get', '/partner/deliveries/{id}', '200'],
      ['post', '/partner/deliveries/{id}/cancel', '200'],
      ['get', '/partner/payment-methods', '200'],
      ['post', '/partner/payment-methods', '201'],
      ['delete', '/partner/payment-methods/{id}', '200'],
      ['get', '/partner/webhook', '200'],
      ['put', '/partner/webhook', '200'],
      ['get', '/track/{id}/public', '200'],
      ['get', '/places/autocomplete', '200'],
      ['get', '/places/resolve', '200'],
    ];
    const missing = endpoints.filter(([method, path, status]) => !openapi.paths[path]?.[method]?.responses?.[status]);
    expect(missing).toEqual([]);
    expect(openapi.servers.map((s: Json) => s.url)).toContain('/api/v1');

    const limit = openapi.paths['/partner/deliveries'].get.parameters.find((p: Json) => p.name === 'limit').schema;
    expect(limit).toMatchObject({ default: 20, maximum: 100 });
    const booking = resolve(openapi.paths['/partner/deliveries'].post.requestBody.content['application/json'].schema);
    expect(resolve(booking.properties.additional_stops).maxItems).toBe(10);
  });
});
