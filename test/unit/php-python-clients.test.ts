import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildOpenApiDocument } from '../../api/openapi/document';
import { bookingBody } from '../helpers/bookings';
import { PHP, PYTHON, runProgram } from '../helpers/client-programs';

/**
 * The PHP and Python clients, each run by its interpreter against a real HTTP server standing in
 * for the API (test/clients/every-call.*): every partner and public operation of the document is
 * called, the key and Idempotency-Key go where they belong, and 429 and 503 are retried with the
 * same key. Against the running service: test/integration/php-python-clients.test.ts.
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let baseUrl: string;
let seen: Seen[];

beforeEach(async () => {
  seen = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      const json = { 'Content-Type': 'application/json' };
      if (request.url.includes('refuse-me')) {
        const envelope = { error: { code: 'not_found', message: 'No such delivery', details: { id: 'unknown' } } };
        res.writeHead(404, { ...json, 'X-Request-Id': 'req-1234' }).end(JSON.stringify(envelope));
      } else if (request.body.includes('retry-me')) {
        const tries = seen.filter((s) => s.body.includes('retry-me')).length;
        if (tries === 1) res.writeHead(429, { ...json, 'Retry-After': '2' }).end(JSON.stringify({ error: { code: 'rate_limited', message: 'Slow down', details: {} } }));
        else if (tries === 2) res.writeHead(503, json).end(JSON.stringify({ error: { code: 'unavailable', message: 'Try again', details: {} } }));
        else res.writeHead(201, json).end(JSON.stringify({ id: 'd-9', status: 'pending' }));
      } else if (request.url.startsWith('/api/v1/proof-photos/')) {
        res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end('ok');
      } else {
        res.writeHead(200, json).end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Each partner and public operation of the document, as `METHOD /path`, and whether it takes the key. */
function contract() {
  const document = buildOpenApiDocument() as { paths: Record<string, Record<string, { tags: string[]; security?: unknown[] }>> };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => operation.tags.includes('Partner') || operation.tags.includes('Public'))
      .map(([method, operation]) => ({
        operation: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        keyed: (operation.security ?? []).length > 0,
        pattern: new RegExp(`^/api/v1${path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?.*)?$`),
      })),
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.each([
  { language: 'PHP', command: PHP, script: 'test/clients/every-call.php' },
  { language: 'Python', command: PYTHON, script: 'test/clients/every-call.py' },
])('the $language client', ({ command, script }) => {
  it('calls every partner and public operation, with the key and an Idempotency-Key only where they belong, and retries 429 and 503 with the same key', async () => {
    const run = await runProgram(command, [script], { DELIVERY_BASE_URL: baseUrl, BOOKING: JSON.stringify(bookingBody()) });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const result = JSON.parse(run.stdout);

    const operations = contract();
    const called = seen.map((s) => ({ s, op: operations.find((o) => o.method === s.method && o.pattern.test(s.url)) }));
    expect(called.filter(({ op }) => !op).map(({ s }) => `${s.method} ${s.url}`)).toEqual([]);
    expect([...new Set(called.map(({ op }) => op!.operation))].sort()).toEqual(operations.map((o) => o.operation).sort());
    for (const { s, op } of called) {
      expect([op!.operation, s.headers.authorization ?? null]).toEqual([op!.operation, op!.keyed ? 'Bearer sk_test_key' : null]);
    }

    // A generated key per booking, account and change unless one is given; none on any other call.
    const idempotent = ['POST /partner/deliveries', 'PATCH /partner/deliveries/{id}', 'POST /partner/payment-methods'];
    for (const { s, op } of called) {
      const key = s.headers['idempotency-key'];
      if (idempotent.includes(op!.operation)) expect(key).toMatch(/^(order-42|change-1|[0-9a-f-]{36})$/);
      else expect([op!.operation, key]).toEqual([op!.operation, undefined]);
    }
    const bookings = called.filter(({ op }) => op!.operation === 'POST /partner/deliveries').map(({ s }) => s);
    expect(bookings[0]!.headers['idempotency-key']).toMatch(UUID);
    expect(bookings[1]!.headers).toMatchObject({ 'idempotency-key': 'order-42', 'sandbox-rider': 'manual' });
    expect(bookings[0]!.headers['sandbox-rider']).toBeUndefined();
    expect(JSON.parse(bookings[0]!.body)).toEqual(bookingBody());
    expect(seen.find((s) => s.method === 'PATCH')!.headers['idempotency-key']).toBe('change-1');
    expect(seen.map((s) => s.url)).toEqual(
      expect.arrayContaining(['/api/v1/partner/deliveries?limit=5&status=pending', '/api/v1/places/autocomplete?q=Osu%20Castle', '/api/v1/partner/webhook/deliveries?limit=5']),
    );
    expect(result.photo).toBe('ok');

    // 429 after its Retry-After, then 503 after the doubled first wait, all with one key.
    const retried = seen.filter((s) => s.body.includes('retry-me'));
    expect(retried).toHaveLength(3);
    expect(new Set(retried.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(retried[0]!.headers['idempotency-key']).toMatch(UUID);
    expect(result.waits).toEqual([2000, 1000]);
    expect(result.retried).toEqual({ id: 'd-9', status: 'pending' });

    expect(result.refused).toEqual({ status: 404, code: 'not_found', message: 'No such delivery', details: { id: 'unknown' }, request_id: 'req-1234' });
  });
});

describe('the PHP client', () => {
  it('refuses a field the document does not name before sending anything', async () => {
    const run = await runProgram(PHP, ['test/clients/every-call.php'], { DELIVERY_BASE_URL: baseUrl, BOOKING: JSON.stringify(bookingBody()) });
    expect(JSON.parse(run.stdout).unknown_field).toBe('BookingRequest has no field recipent_name');
    expect(seen.some((s) => s.body.includes('recipent_name'))).toBe(false);
  });
});
