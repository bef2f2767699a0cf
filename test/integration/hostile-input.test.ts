import fc from 'fast-check';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { api } from '../helpers/http';
import { book, bookingBody, registerAccount, stopBody } from '../helpers/bookings';
import { footprintOf } from '../helpers/db-footprint';
import { buildOpenApiDocument } from '../../api/openapi/document';

// A fixed seed keeps CI repeatable; `FC_SEED=<n>` (or `random`) explores other inputs.
if (process.env.FC_SEED !== 'random') fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261121) });

const RUNS_PER_OPERATION = 80;
const UNLIMITED = { RATE_LIMIT_PARTNER_PER_MINUTE: '1000000', RATE_LIMIT_PARTNER_TEST_PER_MINUTE: '1000000', RATE_LIMIT_PARTNER_IP_PER_MINUTE: '1000000', RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000', RATE_LIMIT_PLACES_PER_MINUTE: '1000000' };

let stack: TestStack;
let partner: Awaited<ReturnType<typeof makePartner>>;
let rider: Awaited<ReturnType<typeof makeRider>>;
beforeAll(async () => {
  // No worker: nothing but the requests below could change the data.
  stack = await startTestStack({ withoutWorker: true, env: UNLIMITED });
  partner = await makePartner(stack.orm);
  rider = await makeRider(stack.orm);
  await registerAccount(stack.baseUrl, partner.liveKey);
  await api(stack.baseUrl, partner.liveKey).put('/partner/webhook', { webhook_url: 'http://127.0.0.1:9/hooks' });
  await book(stack.baseUrl, partner.liveKey);
});
afterAll(async () => {
  await stack?.close();
});

const NASTY = [
  '', ' ', 'NaN', 'Infinity', '-Infinity', '-0', '1e309', '-1e309', '0x1F', '1_000', '9'.repeat(400), 'null', 'undefined', 'true',
  '[]', '{}', '__proto__', 'constructor', 'prototype', "'; drop table deliveries; --", '<script>alert(1)</script>',
  '../../../etc/passwd', '%00', '%2e%2e%2f', '\u0000', '\uFEFF', '\u202E', '😀'.repeat(50), 'ẞ'.repeat(1000),
  '00000000-0000-0000-0000-000000000000', 'sk_live_x', 'rk_x', '-1', '101', '1.5', '2147483648', '9007199254740993',
];
const nastyString = fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 30 }));
const junkKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'status', 'total_fare', 'rider_id', 'payment_status', 'id'), fc.string({ maxLength: 12 }));
const junk = fc.anything({ maxDepth: 3, maxKeys: 5, key: junkKey, values: [nastyString, fc.double(), fc.integer(), fc.boolean(), fc.constant(null)] });
/** Values no field accepts, even with type coercion: objects and arrays. */
const neverValid = fc.oneof(fc.dictionary(junkKey, junk, { maxKeys: 3 }), fc.array(junk, { maxLength: 4 }));

/** A known-good body of the operation, or undefined when it takes none. */
function validBody(method: string, path: string): Record<string, unknown> | undefined {
  if (path === '/partner/deliveries') return bookingBody({ additional_stops: [stopBody()] });
  if (path === '/partner/quotes') return { pickup_lat: 5.55, pickup_lng: -0.2, dropoff_lat: 5.6, dropoff_lng: -0.17, additional_stops: [{ dropoff_lat: 5.56, dropoff_lng: -0.18 }] };
  if (path === '/partner/payment-methods') return { provider: 'network_a', phone: '+233241230001', account_name: 'Shop' };
  if (path === '/partner/webhook') return { webhook_url: 'http://127.0.0.1:9/other' };
  if (path === '/rider/availability') return { online: false };
  if (path === '/rider/location') return { lat: 5.6, lng: -0.2 };
  if (method === 'post' && /complete|deliver$/.test(path)) return { otp: '123456' };
  return undefined;
}

/** A body that is wrong somewhere, as text, with the content type it is sent as. */
function hostileBody(valid: Record<string, unknown> | undefined) {
  const asJson = (text: string) => ({ text, type: 'application/json' });
  const options: fc.Arbitrary<{ text: string; type: string }>[] = [
    junk.map((value) => asJson(JSON.stringify(value) ?? 'null')),
    nastyString.map((text) => asJson(text)),
    fc.integer({ min: 1, max: 20_000 }).map((depth) => asJson('['.repeat(depth) + ']'.repeat(depth))),
    fc.constant(asJson(`{"a":"${'x'.repeat(110_000)}"}`)),
    fc.tuple(junk, fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/xml', 'multipart/form-data; boundary=x'))
      .map(([value, type]) => ({ text: JSON.stringify(value) ?? '', type })),
  ];
  if (valid) {
    const keys = Object.keys(valid);
    options.push(
      // The good body with one field of a type no coercion can fix, plus junk and prototype keys.
      fc.tuple(fc.constantFrom(...keys), neverValid, fc.dictionary(junkKey, junk, { maxKeys: 3 })).map(([field, bad, extra]) => {
        const fields = JSON.stringify({ ...extra, ...valid, [field]: bad }).slice(1, -1);
        return asJson(`{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},${fields}}`);
      }),
    );
  }
  return fc.oneof(...options);
}

/** Header values as fetch can send them: bytes up to 0xFF, no line breaks. */
const headerValue = nastyString.map((s) => s.replace(/[^\x20-\x7e\xa0-\xff]/g, '?').slice(0, 2_000));
const ids = fc.oneof(fc.uuid(), nastyString.filter((s) => s.length > 0));

interface Operation {
  /** Its method and path, as the test names it. */
  name: string;
  method: string;
  path: string;
  auth: 'partner' | 'rider' | 'none';
  query: string[];
}

function operations(): Operation[] {
  const document = buildOpenApiDocument() as { paths: Record<string, Record<string, { security?: unknown[]; parameters?: { in: string; name: string }[] }>> };
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'delete'].includes(method)) continue;
      const security = JSON.stringify(op.security ?? []);
      found.push({
        name: `${method.toUpperCase()} ${path}`,
        method,
        path,
        auth: security.includes('partnerKey') ? 'partner' : security.includes('riderToken') ? 'rider' : 'none',
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      });
    }
  }
  // The payment gateway's callback is outside the document, and open to anyone.
  found.push({ name: 'POST /payments/paystack/webhook', method: 'post', path: '/payments/paystack/webhook', auth: 'none', query: [] });
  return found;
}

const tally: Record<string, number> = {};
let tried = 0;

/**
 * What is wrong with an answer: a 5xx, a stack trace or an HTML page, an error outside the
 * envelope, or a write taken that should have been refused (`refuses`). Empty when nothing is.
 */
function answerFaults(status: number, contentType: string | null, text: string, refuses: boolean): string[] {
  const faults: string[] = [];
  if (status >= 500) faults.push(`${status}: ${text.slice(0, 300)}`);
  if (/\n\s+at |node_modules|<html|<!DOCTYPE/i.test(text)) faults.push(`a stack trace or a page: ${text.slice(0, 300)}`);
  if (refuses && status < 400) faults.push(`taken with ${status}`);
  if (status < 400) return faults;
  if (!/^application\/json/.test(contentType ?? '')) faults.push(`an error as ${contentType}`);
  let body: { error?: { code?: unknown; message?: unknown; details?: unknown } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return [...faults, `an error that is no JSON: ${text.slice(0, 300)}`];
  }
  const error = body?.error;
  if (JSON.stringify(Object.keys(body ?? {})) !== '["error"]') faults.push(`top-level fields ${JSON.stringify(Object.keys(body ?? {}))}`);
  if (JSON.stringify(Object.keys(error ?? {}).sort()) !== '["code","details","message"]') faults.push(`error fields ${JSON.stringify(Object.keys(error ?? {}))}`);
  if (typeof error?.code !== 'string') faults.push(`code ${JSON.stringify(error?.code)}`);
  if (typeof error?.message !== 'string') faults.push(`message ${JSON.stringify(error?.message)}`);
  if (!(error?.details !== null && typeof error?.details === 'object' && !Array.isArray(error.details))) faults.push(`details ${JSON.stringify(error?.details)}`);
  return faults;
}

describe('hostile input', () => {
  const before: { value: string } = { value: '' };
  beforeAll(async () => {
    before.value = await footprintOf(stack.orm, { partnerId: partner.partnerId, riderId: rider.riderId });
  });

  // jest fails a table with no rows, so an empty document cannot pass unseen.
  it.each(operations())('answers $name with the error envelope, never a 5xx, whatever it is sent', async (op) => {
    const carriesBody = op.method !== 'get';
    // Every write here is wrong somewhere: an unknown id, a bad body, or a bad key. A quote
    // writes nothing, and a generated "bad" value can be a valid one (an empty stop list).
    const refuses = (carriesBody || /\{id\}/.test(op.path)) && op.path !== '/partner/quotes';
    const valid = validBody(op.method, op.path);
    await fc.assert(
      fc.asyncProperty(
        ids,
        fc.integer({ min: -5, max: 20 }).map(String),
        hostileBody(valid),
        fc.dictionary(fc.oneof(fc.constantFrom(...op.query, '__proto__', 'constructor[prototype][polluted]', 'limit[]'), fc.string({ maxLength: 8 })), nastyString, { maxKeys: 4 }),
        fc.record({ idem: headerValue, requestId: headerValue, accept: headerValue }),
        fc.constantFrom('own', 'own', 'own', 'junk', 'other-kind', 'none'),
        async (id, index, body, query, headers, authKind) => {
          const path = op.path.replace('{id}', encodeURIComponent(id)).replace('{index}', encodeURIComponent(index));
          const search = new URLSearchParams(Object.entries(query)).toString();
          const own = op.auth === 'partner' ? partner.liveKey : op.auth === 'rider' ? rider.riderToken : undefined;
          const token = { own, junk: `sk_live_${headers.idem}`, 'other-kind': op.auth === 'rider' ? partner.liveKey : rider.riderToken, none: undefined }[authKind];
          const response = await fetch(`${stack.baseUrl}/api/v1${path}${search ? `?${search}` : ''}`, {
            method: op.method.toUpperCase(),
            headers: {
              ...(token ? { Authorization: `Bearer ${token}` } : {}),
              ...(carriesBody ? { 'Content-Type': body.type } : {}),
              'Idempotency-Key': headers.idem,
              'X-Request-Id': headers.requestId,
              Accept: headers.accept,
            },
            body: carriesBody ? body.text : undefined,
          });
          const text = await response.text();
          tried += 1;
          const bucket = `${Math.floor(response.status / 100)}xx`;
          tally[bucket] = (tally[bucket] ?? 0) + 1;
          const where = `${op.method.toUpperCase()} ${path}`;
          expect({ where, faults: answerFaults(response.status, response.headers.get('content-type'), text, refuses) }).toEqual({ where, faults: [] });
        },
      ),
      { numRuns: RUNS_PER_OPERATION },
    );
  });

  it('leaves the data exactly as it was and Object.prototype untouched', async () => {
    expect(await footprintOf(stack.orm, { partnerId: partner.partnerId, riderId: rider.riderId })).toBe(before.value);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
    // The service still answers normally.
    expect((await api(stack.baseUrl, partner.liveKey).get('/partner/deliveries')).status).toBe(200);
    process.stdout.write(`hostile input: ${tried} requests tried over ${operations().length} operations; answers ${JSON.stringify(tally)}\n`);
  });
});
