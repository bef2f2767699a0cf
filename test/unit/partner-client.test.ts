import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX, createPartnerClient, PartnerApiError, withRetries, type BookingRequest } from '../../clients/typescript/src';
import { buildOpenApiDocument } from '../../api/openapi/document';
import { bookingBody } from '../helpers/bookings';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP server standing in for the API: answers each request with the next scripted answer (or 200 `{}`), and notes what it was sent. */
let server: Server;
let baseUrl: string;
let seen: Seen[];
let answers: { status: number; headers?: Record<string, string>; body?: string }[];

beforeEach(async () => {
  seen = [];
  answers = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? { status: 200, body: '{}' };
      res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers }).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const envelope = (code: string, message: string, details: Record<string, unknown> = {}) => JSON.stringify({ error: { code, message, details } });
const booking = bookingBody() as BookingRequest;
const client = () => createPartnerClient({ baseUrl, apiKey: 'sk_test_key' });

describe('the partner client', () => {
  it('turns the error envelope into a PartnerApiError with its code, message, details and request id', async () => {
    answers.push({
      status: 400,
      headers: { 'X-Request-Id': 'req-1234' },
      body: envelope('bad_request', 'Invalid request', { recipient_phone: 'must be a Ghana number' }),
    });
    const error = await client().deliveries.create(booking).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'bad_request',
      message: 'Invalid request',
      details: { recipient_phone: 'must be a Ghana number' },
      requestId: 'req-1234',
      retryAfterSeconds: null,
    });
  });

  it('takes the request id from the details of a 500 when no header carries it', async () => {
    answers.push({ status: 500, body: envelope('internal_error', 'Something went wrong on our side', { request_id: 'req-500' }) });
    await expect(client().deliveries.get('d-1')).rejects.toMatchObject({ status: 500, code: 'internal_error', requestId: 'req-500' });
  });

  it('gives a typed error for an answer without the envelope, such as a proxy page', async () => {
    answers.push({ status: 502, headers: { 'Content-Type': 'text/html' }, body: '<html>Bad gateway</html>' });
    await expect(client().deliveries.list()).rejects.toMatchObject({ status: 502, code: 'unexpected_response', details: {}, requestId: null });
  });

  it('sends the key to partner endpoints only, and an Idempotency-Key only on the call given one', async () => {
    const partner = client();
    await partner.deliveries.create(booking, { idempotencyKey: 'order-42' });
    await partner.deliveries.create(booking);
    await partner.tracking.get('d-1');
    expect(seen.map((s) => [s.method, s.url, s.headers.authorization ?? null, s.headers['idempotency-key'] ?? null])).toEqual([
      ['POST', '/api/v1/partner/deliveries', 'Bearer sk_test_key', 'order-42'],
      ['POST', '/api/v1/partner/deliveries', 'Bearer sk_test_key', null],
      ['GET', '/api/v1/track/d-1/public', null, null],
    ]);
    expect(JSON.parse(seen[0]!.body)).toEqual(booking);
  });

  it('asks for a manual sandbox rider only on the booking given one, and sends each sandbox step as its body', async () => {
    const partner = client();
    await partner.deliveries.create(booking, { sandboxRider: 'manual', idempotencyKey: 'order-43' });
    await partner.deliveries.create(booking);
    await partner.deliveries.simulate('d-1', 'complete_stop');
    expect(seen.map((s) => [s.method, s.url, s.headers['sandbox-rider'] ?? null, s.headers['idempotency-key'] ?? null])).toEqual([
      ['POST', '/api/v1/partner/deliveries', 'manual', 'order-43'],
      ['POST', '/api/v1/partner/deliveries', null, null],
      ['POST', '/api/v1/partner/deliveries/d-1/simulate', null, null],
    ]);
    expect(JSON.parse(seen[2]!.body)).toEqual({ step: 'complete_stop' });
  });

  it('has a method for every partner and public operation of the OpenAPI document', async () => {
    const document = buildOpenApiDocument() as {
      servers: { url: string }[];
      paths: Record<string, Record<string, { tags: string[] }>>;
    };
    expect(API_PREFIX).toBe(document.servers[0]!.url);
    const contract = Object.entries(document.paths)
      .flatMap(([path, operations]) => Object.entries(operations).map(([method, operation]) => ({ path, method, tags: operation.tags })))
      .filter(({ tags }) => tags.includes('Partner') || tags.includes('Public'))
      .map(({ path, method }) => `${method.toUpperCase()} ${path}`);

    const partner = client();
    await partner.quotes.create({ pickup_lat: 5.5, pickup_lng: -0.2, dropoff_lat: 5.6, dropoff_lng: -0.1 });
    await partner.serviceArea.get();
    await partner.deliveries.create(booking);
    await partner.deliveries.list({ limit: 5, status: 'pending' });
    await partner.deliveries.get('d-1');
    await partner.deliveries.change('d-1', { recipient_name: 'Efua Mensah' }, { idempotencyKey: 'change-1' });
    await partner.deliveries.previewChange('d-1', { dropoff_lat: 5.6, dropoff_lng: -0.1 });
    await partner.deliveries.cancel('d-1');
    await partner.deliveries.simulate('d-1', 'accept');
    await partner.deliveries.proof('d-1');
    const photo = await partner.deliveries.photo(`${baseUrl}/api/v1/proof-photos/d-1/final?expires=1&signature=s`);
    await partner.paymentMethods.list();
    await partner.paymentMethods.create({ provider: 'network_a', phone: '+233241230001', account_name: 'Shop' });
    await partner.paymentMethods.delete('pm-1');
    await partner.webhook.get();
    await partner.webhook.set('https://shop.example.com/hooks');
    await partner.webhook.deliveries({ limit: 5 });
    await partner.webhook.redeliver('cb-1');
    await partner.tracking.get('d-1');
    await partner.places.autocomplete('Osu');
    await partner.places.resolve('place-1');
    // Each request, as the path template of the document it matches.
    const templates = contract.map((operation) => {
      const [method, path] = operation.split(' ') as [string, string];
      return { operation, method, pattern: new RegExp(`^${API_PREFIX}${path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?.*)?$`) };
    });
    const called = seen.map((s) => templates.find((t) => t.method === s.method && t.pattern.test(s.url))?.operation ?? `${s.method} ${s.url}`);
    expect([...new Set(called)].sort()).toEqual([...contract].sort());
    expect(seen.find((s) => s.url.startsWith('/api/v1/partner/deliveries?'))?.url).toBe('/api/v1/partner/deliveries?limit=5&status=pending');
    // A photo link's signature is its credential: the key goes to the partner endpoints only.
    expect(seen.find((s) => s.url.startsWith('/api/v1/proof-photos/'))?.headers.authorization).toBeUndefined();
    expect(photo.size).toBe(2);
  });
});

describe('withRetries', () => {
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
  };
  beforeEach(() => {
    waits.length = 0;
  });

  it('waits out Retry-After on a 429, then returns the answer', async () => {
    answers.push({ status: 429, headers: { 'Retry-After': '2' }, body: envelope('rate_limited', 'Too many requests') });
    answers.push({ status: 201, body: JSON.stringify({ id: 'd-1', status: 'pending' }) });
    const partner = client();
    const delivery = await withRetries(() => partner.deliveries.create(booking, { idempotencyKey: 'order-7' }), { sleep });
    expect(delivery).toEqual({ id: 'd-1', status: 'pending' });
    expect(waits).toEqual([2000]);
    // The retry is the same booking: same key, same body.
    expect(seen.map((s) => [s.headers['idempotency-key'], s.body])).toEqual([
      ['order-7', JSON.stringify(booking)],
      ['order-7', JSON.stringify(booking)],
    ]);
  });

  it('backs off on a 503 without Retry-After, doubling each time, and gives up after the retries with the last error', async () => {
    for (let i = 0; i < 4; i++) answers.push({ status: 503, body: envelope('unavailable', 'A backing service is unreachable') });
    const partner = client();
    const error = await withRetries(() => partner.deliveries.get('d-1'), { sleep, retries: 3, initialDelayMs: 100 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, code: 'unavailable' });
    expect(waits).toEqual([100, 200, 400]);
    expect(seen).toHaveLength(4);
  });

  it('does not retry an answer that will not change, nor wait longer than it may', async () => {
    answers.push({ status: 400, body: envelope('bad_request', 'Too late to cancel', { status: 'picked_up' }) });
    const partner = client();
    await expect(withRetries(() => partner.deliveries.cancel('d-1'), { sleep })).rejects.toMatchObject({ status: 400, details: { status: 'picked_up' } });
    answers.push({ status: 429, headers: { 'Retry-After': '120' }, body: envelope('rate_limited', 'Too many requests') });
    await expect(withRetries(() => partner.deliveries.get('d-1'), { sleep, maxDelayMs: 30_000 })).rejects.toMatchObject({ status: 429, retryAfterSeconds: 120 });
    expect(waits).toEqual([]);
    expect(seen).toHaveLength(2);
  });
});
