import http from 'node:http';
import net from 'node:net';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { api } from '../helpers/http';
import { startTcpProxy } from '../fakes/tcp-proxy';
import { bookingBody, registerAccount, SANDBOX, stopBody } from '../helpers/bookings';
import { deliveriesOf, deliveryIdsOf } from '../helpers/db-deliveries';
import { paymentMethodsOf } from '../helpers/db-payments';
import { revokeApiKey } from '../../db/accounts';
import { generateSecret } from '../../domain/api-key';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ withoutWorker: true });
});
afterAll(async () => {
  await stack?.close();
});

function expectEnvelope(body: any, code: string) {
  expect(body).toEqual({ error: { code, message: expect.any(String), details: expect.any(Object) } });
}

/** One request written as raw bytes, for what an HTTP client would not send; the whole answer as text. */
function raw(request: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(new URL(stack.baseUrl).port), '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('the error envelope', () => {
  it('answers malformed JSON with 400 bad_request', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const res = await api(stack.baseUrl, liveKey).post('/partner/quotes', '{"pickup_lat": 5.5,', { 'Content-Type': 'application/json' });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'bad_request');
  });

  it('tells a body that is JSON but not an object so, rather than calling it invalid JSON', async () => {
    const { liveKey } = await makePartner(stack.orm);
    for (const body of ['null', '42', '"quote"']) {
      const res = await api(stack.baseUrl, liveKey).post('/partner/quotes', body, { 'Content-Type': 'application/json' });
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'bad_request');
      expect(res.body.error.message).toBe('The body must be a JSON object');
    }
  });

  it('refuses blank addresses and names, field by field, and books nothing', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const partnerApi = api(stack.baseUrl, liveKey);
    const res = await partnerApi.post('/partner/deliveries', { ...bookingBody(), pickup_address: '   ', recipient_name: '\t' });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'bad_request');
    expect(res.body.error.details).toEqual({ pickup_address: 'must not be blank', recipient_name: 'must not be blank' });
    expect((await partnerApi.get('/partner/deliveries')).body).toEqual([]);
    const account = await partnerApi.post('/partner/payment-methods', { provider: 'network_a', phone: '+233241230001', account_name: ' ' });
    expect(account.status).toBe(400);
    expect(account.body.error.details).toEqual({ account_name: 'must not be blank' });
  });

  it('names the body itself `body` in details when it is not an object', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const client = api(stack.baseUrl, liveKey);
    for (const body of ['[]', '[{"pickup_lat": 5.55}]']) {
      const res = await client.post('/partner/quotes', body, { 'Content-Type': 'application/json' });
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'bad_request');
      expect(Object.keys(res.body.error.details)).toEqual(['body']);
    }
  });

  it('names each missing field when a JSON request frames no body at all, as when its body is empty', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const head = `POST /api/v1/partner/quotes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${liveKey}\r\nConnection: close\r\n`;
    // Neither Content-Length nor Transfer-Encoding, as `curl -X POST -H 'Content-Type: application/json'` sends; then length 0.
    const requests = [
      'Content-Type: application/json\r\n',
      'Content-Type: application/json; charset=utf-8\r\n',
      'Content-Type: application/json\r\nContent-Length: 0\r\n',
    ];
    for (const request of requests) {
      const answer = await raw(`${head}${request}\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
      expectEnvelope(body, 'bad_request');
      expect(Object.keys(body.error.details).sort()).toEqual(['dropoff_lat', 'dropoff_lng', 'pickup_lat', 'pickup_lng']);
    }
  });

  it('lists each failing field of a schema violation in details', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const res = await api(stack.baseUrl, liveKey).post('/partner/deliveries', {
      ...bookingBody(),
      pickup_lat: 'north',
      package_size: 'huge',
      recipient_name: undefined,
    });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'bad_request');
    expect(Object.keys(res.body.error.details)).toEqual(expect.arrayContaining(['pickup_lat', 'package_size', 'recipient_name']));
  });

  it('checks phone numbers with every other field, so one answer names each fault, and nothing is stored', async () => {
    const { liveKey, partnerId } = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, liveKey);
    const client = api(stack.baseUrl, liveKey);
    // Both numbers have the contract's form, +233 and nine digits, but no such number exists.
    const booking = await client.post(
      '/partner/deliveries',
      bookingBody({
        package_size: 'huge',
        recipient_phone: '+233000000000',
        additional_stops: [stopBody(), stopBody({ recipient_phone: '+233301234567', dropoff_lat: 91 })],
      }),
    );
    expect(booking.status).toBe(400);
    expectEnvelope(booking.body, 'bad_request');
    expect(booking.body.error.details).toEqual({
      package_size: expect.any(String),
      recipient_phone: 'is not a valid Ghana phone number',
      'additional_stops[1].recipient_phone': 'is not a valid Ghana phone number',
      'additional_stops[1].dropoff_lat': expect.any(String),
    });
    const account = await client.post('/partner/payment-methods', { provider: 'network_x', phone: '+233000000000', account_name: 'Ama' });
    expect(account.status).toBe(400);
    expect(Object.keys(account.body.error.details).sort()).toEqual(['phone', 'provider']);
    expect(await deliveryIdsOf(stack.orm, partnerId)).toEqual([]);
  });

  it('books recipients on +23325…, a range of network_a (DESIGN section 6) newer than libphonenumber’s data', async () => {
    const { liveKey } = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, liveKey);
    const res = await api(stack.baseUrl, liveKey).post(
      '/partner/deliveries',
      bookingBody({ recipient_phone: '+233251234567', additional_stops: [stopBody({ recipient_phone: '+233257654321' })] }),
    );
    expect(res.status).toBe(201);
    expect(res.body.recipient_phone).toBe('+233251234567');
  });

  it('takes JSON types as written: a null, a string for a number or a number for a string is refused, and nothing is stored', async () => {
    const { liveKey, partnerId } = await makePartner(stack.orm);
    const client = api(stack.baseUrl, liveKey);
    await registerAccount(stack.baseUrl, liveKey);
    const route = { pickup_lat: 5.55, pickup_lng: -0.21, dropoff_lat: 5.6, dropoff_lng: -0.17 };
    for (const [field, value] of [['pickup_lat', null], ['pickup_lat', '5.55'], ['dropoff_lng', true]] as const) {
      const res = await client.post('/partner/quotes', { ...route, [field]: value });
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'bad_request');
      expect(Object.keys(res.body.error.details)).toEqual([field]);
    }
    for (const [field, value] of [['pickup_lat', null], ['recipient_name', 12345]] as const) {
      const res = await client.post('/partner/deliveries', bookingBody({ [field]: value }));
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual([field]);
    }
    const res = await client.post('/partner/payment-methods', { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Ama', is_default: 'false' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual(['is_default']);
    expect(await deliveryIdsOf(stack.orm, partnerId)).toEqual([]);
  });

  it('refuses a body that is not JSON with 415 unsupported_media_type', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const res = await api(stack.baseUrl, liveKey).post('/partner/quotes', 'pickup_lat=5.5', { 'Content-Type': 'text/plain' });
    expect(res.status).toBe(415);
    expectEnvelope(res.body, 'unsupported_media_type');
  });

  it('refuses a body over 100 kB with 413 payload_too_large', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const res = await api(stack.baseUrl, liveKey).post('/partner/deliveries', { ...bookingBody(), package_description: 'x'.repeat(120_000) });
    expect(res.status).toBe(413);
    expectEnvelope(res.body, 'payload_too_large');
  });

  it('takes a body of 100 kB, 100,000 bytes, and refuses one byte more with 413', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const quote = JSON.stringify({ pickup_lat: 5.55, pickup_lng: -0.2, dropoff_lat: 5.6, dropoff_lng: -0.17 });
    const padded = (bytes: number) => `${quote.slice(0, -1)}${' '.repeat(bytes - quote.length)}}`;
    const client = api(stack.baseUrl, liveKey);
    const atLimit = await client.post('/partner/quotes', padded(100_000), { 'Content-Type': 'application/json' });
    expect(atLimit.status).toBe(200);
    const over = await client.post('/partner/quotes', padded(100_001), { 'Content-Type': 'application/json' });
    expect(over.status).toBe(413);
    expectEnvelope(over.body, 'payload_too_large');
  });

  it('answers an unknown route with 404 and a known path with the wrong method with 405', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const client = api(stack.baseUrl, liveKey);
    const unknown = await client.get('/partner/nothing-here');
    expect(unknown.status).toBe(404);
    expectEnvelope(unknown.body, 'not_found');
    const outside = await fetch(`${stack.baseUrl}/no/such/page`);
    expect(outside.status).toBe(404);
    expectEnvelope(await outside.json(), 'not_found');
    const wrongMethod = await client.call('PATCH', '/partner/deliveries');
    expect(wrongMethod.status).toBe(405);
    expectEnvelope(wrongMethod.body, 'method_not_allowed');
  });

  it('answers the rider routes like the partner ones: 405 for the wrong method, 415 for a body that is not JSON', async () => {
    const rider = api(stack.baseUrl, (await makeRider(stack.orm)).riderToken);
    const wrongMethod = await rider.call('DELETE', '/rider/offers');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expectEnvelope(wrongMethod.body, 'method_not_allowed');
    const notJson = await rider.post('/rider/location', 'lat=5.55&lng=-0.2', { 'Content-Type': 'text/plain' });
    expect(notJson.status).toBe(415);
    expectEnvelope(notJson.body, 'unsupported_media_type');
  });

  it('answers the wrong method on the pages and probes outside the API with 405 and Allow, and HEAD like GET', async () => {
    const trackPage = '/track?id=6f1c2b1e-8d7a-4c55-9b0e-2f5a4d3c2b1a';
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs/', trackPage, '/track/assets/track.js']) {
      for (const method of ['POST', 'DELETE']) {
        const res = await fetch(`${stack.baseUrl}${path}`, { method });
        expect({ path, method, status: res.status }).toEqual({ path, method, status: 405 });
        expect(res.headers.get('allow')).toBe('GET');
        expectEnvelope(await res.json(), 'method_not_allowed');
      }
      expect((await fetch(`${stack.baseUrl}${path}`, { method: 'HEAD' })).status).toBe(200);
    }
  });

  it('answers the payment gateway’s callback path like any known path: 405 for other methods, 413 over 100 kB', async () => {
    const callback = `${stack.baseUrl}/api/v1/payments/paystack/webhook`;
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await fetch(callback, { method });
      expect({ method, status: res.status }).toEqual({ method, status: 405 });
      expect(res.headers.get('allow')).toBe('POST');
      expectEnvelope(await res.json(), 'method_not_allowed');
    }
    expect((await fetch(callback, { method: 'HEAD' })).status).toBe(405);
    // The same 100,000 bytes as every other body: read (and refused for its signature) up to them, 413 past them.
    const padded = (bytes: number) => `{"event":"charge.success"${' '.repeat(bytes - 26)}}`;
    const atLimit = await fetch(callback, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: padded(100_000) });
    expect(atLimit.status).toBe(401);
    const over = await fetch(callback, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: padded(100_001) });
    expect(over.status).toBe(413);
    expectEnvelope(await over.json(), 'payload_too_large');
  });

  it('answers HEAD on the API like GET without the body, and 405 where there is no GET', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const auth = { Authorization: `Bearer ${liveKey}` };
    const head = await fetch(`${stack.baseUrl}/api/v1/partner/deliveries`, { method: 'HEAD', headers: auth });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await head.text()).toBe('');
    const unknown = await fetch(`${stack.baseUrl}/api/v1/track/6f1c2b1e-8d7a-4c55-9b0e-2f5a4d3c2b1a/public`, { method: 'HEAD' });
    expect(unknown.status).toBe(404);
    const postOnly = await fetch(`${stack.baseUrl}/api/v1/partner/quotes`, { method: 'HEAD', headers: auth });
    expect(postOnly.status).toBe(405);
    expect(postOnly.headers.get('allow')).toBe('POST');
  });

  it('tells a rider app that sends two photos to send one, rather than that its photo is too large', async () => {
    const rider = await makeRider(stack.orm);
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]);
    const form = new FormData();
    form.append('photo', new Blob([jpeg], { type: 'image/jpeg' }), 'door.jpg');
    form.append('photo', new Blob([jpeg], { type: 'image/jpeg' }), 'door-again.jpg');
    const res = await fetch(`${stack.baseUrl}/api/v1/rider/deliveries/6f1c2b1e-8d7a-4c55-9b0e-2f5a4d3c2b1a/deliver`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rider.riderToken}` },
      body: form,
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: Record<string, string> } };
    expectEnvelope(body, 'bad_request');
    expect(body.error.details).toEqual({ photo: 'only one file may be sent' });
  });

  it('answers a compressed body that does not inflate with 400 bad_request, not as our fault', async () => {
    const { liveKey } = await makePartner(stack.orm);
    for (const encoding of ['gzip', 'br', 'deflate']) {
      const res = await api(stack.baseUrl, liveKey).post('/partner/quotes', '{"pickup_lat": 5.5}', {
        'Content-Type': 'application/json',
        'Content-Encoding': encoding,
      });
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'bad_request');
      expect(res.body.error.details).toEqual({});
    }
  });

  it('names the path or the body in details when the request itself cannot be read, never the request path', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const client = api(stack.baseUrl, liveKey);
    // A path that does not percent-decode.
    for (const [path, res] of [
      ['/partner/deliveries/%ff', await client.get('/partner/deliveries/%ff')],
      ['/partner/deliveries/%E0%A4%A/cancel', await client.post('/partner/deliveries/%E0%A4%A/cancel')],
      ['/track/%/public', await api(stack.baseUrl).get('/track/%/public')],
    ] as const) {
      expect([path, res.status]).toEqual([path, 400]);
      expectEnvelope(res.body, 'bad_request');
      expect([path, res.body.error.details]).toEqual([path, { path: 'is not valid percent-encoding' }]);
    }
    // A multipart body the rider app got wrong: too many fields, or no boundary.
    const rider = await makeRider(stack.orm);
    const deliver = `${stack.baseUrl}/api/v1/rider/deliveries/6f1c2b1e-8d7a-4c55-9b0e-2f5a4d3c2b1a/deliver`;
    const form = new FormData();
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) form.append(name, '1');
    const crowded = await fetch(deliver, { method: 'POST', headers: { Authorization: `Bearer ${rider.riderToken}` }, body: form });
    const unbounded = await fetch(deliver, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rider.riderToken}`, 'Content-Type': 'multipart/form-data' },
      body: 'photo',
    });
    for (const res of [crowded, unbounded]) {
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { details: Record<string, string> } };
      expectEnvelope(body, 'bad_request');
      expect(Object.keys(body.error.details)).toEqual(['body']);
    }
  });

  it('answers unknown and malformed delivery ids with 404', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const client = api(stack.baseUrl, liveKey);
    for (const id of ['6f1c2b1e-8d7a-4c55-9b0e-2f5a4d3c2b1a', 'not-a-uuid', '1']) {
      const res = await client.get(`/partner/deliveries/${id}`);
      expect(res.status).toBe(404);
      expectEnvelope(res.body, 'not_found');
    }
  });

  it('refuses a booking with more than 10 additional stops, saving nothing, and takes one with 10', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    const stops = (n: number) => Array.from({ length: n }, () => stopBody());

    const refused = await client.post('/partner/deliveries', bookingBody({ additional_stops: stops(11) }));
    expect(refused.status).toBe(400);
    expectEnvelope(refused.body, 'bad_request');
    expect(Object.keys(refused.body.error.details)).toEqual(['additional_stops']);
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toEqual([]);

    const taken = await client.post('/partner/deliveries', bookingBody({ additional_stops: stops(10) }));
    expect(taken.status).toBe(201);
    expect(taken.body.additional_stops).toHaveLength(10);
  });

  it('takes booking text up to DESIGN section 9’s limits, kept whole, and refuses one character more', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    const at = (length: number, letter: string) => letter.repeat(length);
    const longest = bookingBody({
      pickup_address: at(300, 'p'),
      dropoff_address: at(300, 'd'),
      recipient_name: at(100, 'r'),
      package_description: at(500, 'x'),
      additional_stops: [stopBody({ dropoff_address: at(300, 's'), recipient_name: at(100, 'n'), package_description: at(500, 'y') })],
    });
    const booked = await client.post('/partner/deliveries', longest);
    expect(booked.status).toBe(201);
    expect(booked.body).toMatchObject({
      pickup_address: longest.pickup_address,
      dropoff_address: longest.dropoff_address,
      recipient_name: longest.recipient_name,
      package_description: at(500, 'x'),
    });
    expect(booked.body.additional_stops[0]).toMatchObject({ dropoff_address: at(300, 's'), recipient_name: at(100, 'n') });

    const tooLong: [Record<string, unknown>, string][] = [
      [{ pickup_address: at(301, 'p') }, 'pickup_address'],
      [{ dropoff_address: at(301, 'd') }, 'dropoff_address'],
      [{ recipient_name: at(101, 'r') }, 'recipient_name'],
      [{ package_description: at(501, 'x') }, 'package_description'],
      [{ additional_stops: [stopBody({ dropoff_address: at(301, 's') })] }, 'additional_stops[0].dropoff_address'],
      [{ additional_stops: [stopBody({ recipient_name: at(101, 'n') })] }, 'additional_stops[0].recipient_name'],
      [{ additional_stops: [stopBody({ package_description: at(501, 'y') })] }, 'additional_stops[0].package_description'],
    ];
    for (const [override, field] of tooLong) {
      const res = await client.post('/partner/deliveries', bookingBody(override));
      expect({ field, status: res.status, details: Object.keys(res.body.error?.details ?? {}) }).toEqual({ field, status: 400, details: [field] });
    }
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toEqual([booked.body.id]);
  });

  it('refuses limit outside 1..100 and a negative offset instead of clamping', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const client = api(stack.baseUrl, liveKey);
    for (const query of ['limit=0', 'limit=101', 'limit=-1', 'limit=abc', 'offset=-1', 'limit=2.5']) {
      const res = await client.get(`/partner/deliveries?${query}`);
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'bad_request');
    }
    expect((await client.get('/partner/deliveries?limit=100&offset=0')).status).toBe(200);
  });

  it('takes any offset up to the largest exact integer, past the end an empty page, and refuses one above', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const booked = await api(stack.baseUrl, partner.liveKey).post('/partner/deliveries', bookingBody());
    expect(booked.status).toBe(201);
    const client = api(stack.baseUrl, partner.liveKey);
    for (const path of ['/partner/deliveries', '/partner/webhook/deliveries']) {
      for (const offset of ['1000000000000000', String(Number.MAX_SAFE_INTEGER)]) {
        const res = await client.get(`${path}?offset=${offset}`);
        expect({ path, offset, status: res.status, body: res.body }).toEqual({ path, offset, status: 200, body: [] });
      }
      const above = await client.get(`${path}?offset=9007199254740992`);
      expect(above.status).toBe(400);
      expect(above.body.error.details).toEqual({ offset: expect.stringContaining(String(Number.MAX_SAFE_INTEGER)) });
    }
    const hugeLimit = await client.get('/partner/deliveries?limit=9007199254740992');
    expect(hugeLimit.status).toBe(400);
    expect(Object.keys(hugeLimit.body.error.details)).toEqual(['limit']);
    // Leading zeros are still the integer written.
    const padded = await client.get('/partner/deliveries?offset=0000000000000000&limit=0000000000000001');
    expect(padded.status).toBe(200);
    expect(padded.body.map((d: { id: string }) => d.id)).toEqual([booked.body.id]);
  });

  it('ignores limit and offset on routes that take no page, like any unknown query field', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const junk = 'limit=abc&offset=1.5';
    expect((await api(stack.baseUrl, liveKey).get(`/partner/payment-methods?${junk}`)).status).toBe(200);
    expect((await api(stack.baseUrl).get(`/places/autocomplete?q=osu&${junk}`)).status).toBe(200);
    const tracking = await api(stack.baseUrl).get(`/track/00000000-0000-4000-8000-000000000000/public?${junk}`);
    expect(tracking.status).toBe(404);
    expectEnvelope(tracking.body, 'not_found');
    // The lists still refuse them, however the path is written.
    for (const path of ['/partner/deliveries', '/partner/deliveries/', '/Partner/Deliveries', '/partner/webhook/deliveries']) {
      const res = await api(stack.baseUrl, liveKey).get(`${path}?${junk}`);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.error.details).toEqual({ limit: 'must be integer', offset: 'must be integer' });
    }
  });

  it('refuses a scheduled_at that names no real time instead of moving it to another day', async () => {
    const { liveKey, partnerId } = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, liveKey);
    const client = api(stack.baseUrl, liveKey);
    // Each would otherwise be read as the next day (2 March, 1 May, 16 June) and, being past, dispatched at once.
    for (const scheduledAt of ['2025-02-30T10:00:00Z', '2025-04-31T10:00:00Z', '2025-06-15T24:00:00Z']) {
      const res = await client.post('/partner/deliveries', bookingBody({ scheduled_at: scheduledAt }));
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'bad_request');
      expect(Object.keys(res.body.error.details)).toEqual(['scheduled_at']);
    }
    expect(await deliveryIdsOf(stack.orm, partnerId)).toEqual([]);
  });

  it('refuses a scheduled_at in the year 0 with 400, not a 500 from the database, and takes the year 1', async () => {
    const { liveKey, partnerId } = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, liveKey);
    const client = api(stack.baseUrl, liveKey);
    // RFC 3339 writes the year 0000; PostgreSQL has no year 0 in that form. The second is 0000-12-31T23:00Z.
    for (const scheduledAt of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00']) {
      const res = await client.post('/partner/deliveries', bookingBody({ scheduled_at: scheduledAt }));
      expect([scheduledAt, res.status]).toEqual([scheduledAt, 400]);
      expectEnvelope(res.body, 'bad_request');
      expect(res.body.error.details).toEqual({ scheduled_at: 'must not be before 0001-01-01T00:00:00Z' });
    }
    expect(await deliveryIdsOf(stack.orm, partnerId)).toEqual([]);
    // A past time dispatches at once, however far back.
    const earliest = await client.post('/partner/deliveries', bookingBody({ scheduled_at: '0001-01-01T00:00:00Z' }));
    expect(earliest.status).toBe(201);
    expect(earliest.body.scheduled_at).toBe('0001-01-01T00:00:00.000Z');
  });

  it('refuses a body that is not valid UTF-8 with 400, rather than storing U+FFFD for its bad bytes', async () => {
    const { liveKey, partnerId } = await makePartner(stack.orm);
    const send = (path: string, text: string, encoding: BufferEncoding) =>
      fetch(`${stack.baseUrl}/api/v1${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
        body: Buffer.from(text, encoding),
      });
    // "Café" written in Latin-1: the é is the single byte 0xE9, which UTF-8 never has alone.
    const latin1 = await send('/partner/payment-methods', JSON.stringify({ provider: 'network_a', phone: SANDBOX.ok, account_name: 'Café Accra' }), 'latin1');
    expect(latin1.status).toBe(400);
    const body = (await latin1.json()) as { error: { message: string } };
    expectEnvelope(body, 'bad_request');
    expect(body.error.message).toBe('The body is not valid UTF-8');
    expect(await paymentMethodsOf(stack.orm, partnerId)).toEqual([]);
    // The same text in UTF-8 is taken as sent.
    const utf8 = await send('/partner/payment-methods', JSON.stringify({ provider: 'network_a', phone: SANDBOX.ok, account_name: 'Café Accra' }), 'utf8');
    expect(utf8.status).toBe(201);
    expect(((await utf8.json()) as { account_name: string }).account_name).toBe('Café Accra');
  });

  it('refuses text holding a NUL character with 400 naming each field, not a 500 from the database', async () => {
    const { liveKey, partnerId } = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, liveKey);
    const client = api(stack.baseUrl, liveKey);
    const booking = await client.post(
      '/partner/deliveries',
      bookingBody({
        pickup_address: 'Makola Market\u0000, Accra',
        package_description: '\u0000',
        additional_stops: [stopBody(), stopBody({ recipient_name: 'Yaw\u0000 Boateng' })],
      }),
    );
    expect(booking.status).toBe(400);
    expectEnvelope(booking.body, 'bad_request');
    expect(Object.keys(booking.body.error.details).sort()).toEqual(['additional_stops[1].recipient_name', 'package_description', 'pickup_address']);
    const account = await client.post('/partner/payment-methods', { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Ama\u0000' });
    expect(account.status).toBe(400);
    expect(Object.keys(account.body.error.details)).toEqual(['account_name']);
    expect(await deliveryIdsOf(stack.orm, partnerId)).toEqual([]);
  });

  it('refuses text holding an unpaired surrogate with 400 naming each field, rather than storing U+FFFD', async () => {
    const { liveKey, partnerId } = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, liveKey);
    const client = api(stack.baseUrl, liveKey);
    // JSON can carry a lone surrogate as an escape; UTF-8, and so PostgreSQL, cannot hold it.
    const booking = await client.post(
      '/partner/deliveries',
      bookingBody({
        dropoff_address: 'Osu \ud800 Oxford Street',
        recipient_name: '\udc00Ama',
        additional_stops: [stopBody({ package_description: 'fragile \udbff' })],
      }),
    );
    expect(booking.status).toBe(400);
    expectEnvelope(booking.body, 'bad_request');
    expect(Object.keys(booking.body.error.details).sort()).toEqual(['additional_stops[0].package_description', 'dropoff_address', 'recipient_name']);
    // A pair is one character, kept as sent.
    const emoji = await client.post('/partner/deliveries', bookingBody({ recipient_name: 'Ama 😀 Mensah' }));
    expect(emoji.status).toBe(201);
    expect((await client.get(`/partner/deliveries/${emoji.body.id}`)).body.recipient_name).toBe('Ama 😀 Mensah');

    const account = await client.post('/partner/payment-methods', { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Shop \ud83d' });
    expect(account.status).toBe(400);
    expect(Object.keys(account.body.error.details)).toEqual(['account_name']);
    const hook = await client.put('/partner/webhook', { webhook_url: 'http://127.0.0.1:9/hooks\ud800' });
    expect(hook.status).toBe(400);
    expectEnvelope(hook.body, 'bad_request');
    expect(Object.keys(hook.body.error.details)).toEqual(['webhook_url']);

    expect(await deliveryIdsOf(stack.orm, partnerId)).toEqual([emoji.body.id]);
    expect(await paymentMethodsOf(stack.orm, partnerId)).toHaveLength(1);
    expect((await client.get('/partner/webhook')).body).toEqual({ webhook_url: null });
  });

  it('never answers with HTML or a stack trace, even when a dependency throws', async () => {
    const broken = await startTestStack({
      withoutWorker: true,
      appOverrides: { routing: { route: async () => { throw new Error('routing exploded at /secret/path.ts:12'); } } },
    });
    try {
      const { liveKey } = await makePartner(broken.orm);
      const res = await api(broken.baseUrl, liveKey).post('/partner/quotes', { pickup_lat: 5.55, pickup_lng: -0.2, dropoff_lat: 5.6, dropoff_lng: -0.17 });
      expect(res.status).toBe(500);
      expectEnvelope(res.body, 'internal_error');
      expect(res.body.error.details.request_id).toBe(res.headers.get('x-request-id'));
      expect(JSON.stringify(res.body)).not.toContain('exploded');
      expect(res.headers.get('content-type')).toContain('application/json');
    } finally {
      await broken.close();
    }
  });
});

describe('authentication', () => {
  const quote = { pickup_lat: 5.55, pickup_lng: -0.2, dropoff_lat: 5.6, dropoff_lng: -0.17 };

  it('refuses a missing, malformed, unknown or revoked key with 401 and WWW-Authenticate', async () => {
    const partner = await makePartner(stack.orm);
    await revokeApiKey(stack.orm.em.fork(), partner.partnerId, partner.liveKeyId);
    const unknownButWellFormed = partner.testKey.slice(0, 8) + 'A'.repeat(30) + partner.testKey.slice(-6);
    for (const key of [undefined, 'sk_live_short', 'Basic abc', unknownButWellFormed, partner.liveKey]) {
      const res = await api(stack.baseUrl, key).post('/partner/quotes', quote);
      expect(res.status).toBe(401);
      expectEnvelope(res.body, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect((await api(stack.baseUrl, partner.testKey).post('/partner/quotes', quote)).status).toBe(200);
  });

  it('refuses a request carrying more than one Authorization header with 401, whichever keys they hold', async () => {
    const partner = await makePartner(stack.orm);
    const rider = await makeRider(stack.orm);
    // fetch joins repeated headers into one line; node:http sends each as its own field line.
    const get = (path: string, authorization: string[]) =>
      new Promise<{ status: number; challenge: unknown; body: any }>((resolve, reject) => {
        const req = http.get(`${stack.baseUrl}/api/v1${path}`, { headers: { Authorization: authorization } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, challenge: res.headers['www-authenticate'], body: JSON.parse(text) }));
        });
        req.on('error', reject);
      });
    const cases: [string, string[]][] = [
      ['/partner/deliveries', [`Bearer ${partner.liveKey}`, `Bearer ${partner.testKey}`]],
      ['/partner/deliveries', [`Bearer ${partner.liveKey}`, `Bearer ${partner.liveKey}`]],
      ['/partner/deliveries', [`Bearer ${partner.liveKey}`, 'Basic abc']],
      ['/rider/offers', [`Bearer ${rider.riderToken}`, `Bearer ${rider.riderToken}`]],
    ];
    for (const [path, authorization] of cases) {
      const res = await get(path, authorization);
      expect([path, res.status, res.challenge]).toEqual([path, 401, 'Bearer']);
      expectEnvelope(res.body, 'unauthorized');
    }
    expect((await get('/partner/deliveries', [`Bearer ${partner.liveKey}`])).status).toBe(200);
    expect((await get('/rider/offers', [`Bearer ${rider.riderToken}`])).status).toBe(200);
  });

  it('checks the key before the body: without one, malformed, oversized or non-JSON bodies are 401 too', async () => {
    const noKey = api(stack.baseUrl);
    const bodies: [unknown, Record<string, string>][] = [
      ['{"pickup_lat": ', { 'Content-Type': 'application/json' }],
      [JSON.stringify({ ...bookingBody(), package_description: 'x'.repeat(120_000) }), { 'Content-Type': 'application/json' }],
      ['pickup_lat=5.5', { 'Content-Type': 'text/plain' }],
    ];
    for (const [body, headers] of bodies) {
      const res = await noKey.post('/partner/deliveries', body, headers);
      expect(res.status).toBe(401);
      expectEnvelope(res.body, 'unauthorized');
    }
    const rider = await api(stack.baseUrl).post('/rider/location', '{"lat": ', { 'Content-Type': 'application/json' });
    expect(rider.status).toBe(401);
  });

  it('checks the rider token before the body: without a valid one the answer is 401, whatever is sent', async () => {
    const rider = await makeRider(stack.orm);
    const job = '6f1c2b1e-8d7a-4c55-9b0e-2f5a4d3c2b1a';
    // No token, a malformed one, and a well-formed one that was never issued.
    for (const token of [undefined, 'rk_live_short', generateSecret('live', 'rk')]) {
      const invalid = await api(stack.baseUrl, token).put('/rider/availability', { online: 'yes' });
      expect(invalid.status).toBe(401);
      expectEnvelope(invalid.body, 'unauthorized');
      expect(invalid.headers.get('www-authenticate')).toBe('Bearer');
      const form = new FormData();
      form.append('photo', new Blob([Buffer.from([0xff, 0xd8, 0xff, 0xe0])], { type: 'image/jpeg' }), 'door.jpg');
      const upload = await fetch(`${stack.baseUrl}/api/v1/rider/deliveries/${job}/deliver`, {
        method: 'POST',
        headers: token ? { Authorization: `Bearer ${token}` } : {},
        body: form,
      });
      expect(upload.status).toBe(401);
      expectEnvelope(await upload.json(), 'unauthorized');
    }
    const known = await api(stack.baseUrl, rider.riderToken).put('/rider/availability', { online: 'yes' });
    expect(known.status).toBe(400);
    expect(known.body.error.details).toEqual({ online: 'must be boolean' });
  });

  it('keeps test-mode and live-mode data apart like two accounts', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const live = await api(stack.baseUrl, partner.liveKey).get('/partner/payment-methods');
    const test = await api(stack.baseUrl, partner.testKey).get('/partner/payment-methods');
    expect(live.body).toEqual([]);
    expect(test.body).toHaveLength(1);
  });

  it('needs no key for places and public tracking', async () => {
    expect((await api(stack.baseUrl).get('/places/autocomplete?q=makola')).status).toBe(200);
    expect((await api(stack.baseUrl).get('/track/6f1c2b1e-8d7a-4c55-9b0e-2f5a4d3c2b1a/public')).status).toBe(404);
  });
});

describe('when Temporal is unreachable', () => {
  it('answers a booking with 503 unavailable and leaves no delivery behind', async () => {
    // No retry interceptor: the calls fail at once and leave no retry timers behind.
    const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: '1 second', interceptors: [] });
    const deadTemporal = new Client({ connection });
    const down = await startTestStack({ withoutWorker: true, appOverrides: { temporal: deadTemporal } });
    try {
      const partner = await makePartner(down.orm);
      await registerAccount(down.baseUrl, partner.liveKey);
      const res = await api(down.baseUrl, partner.liveKey).post('/partner/deliveries', bookingBody());
      expect(res.status).toBe(503);
      expectEnvelope(res.body, 'unavailable');
      expect(await deliveryIdsOf(down.orm, partner.partnerId)).toEqual([]);
      const ready = await fetch(`${down.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
    } finally {
      await down.close();
      await connection.close().catch(() => undefined);
    }
  });

  it('answers 503 within the call deadline when Temporal stops answering but keeps its connections, and changes nothing', async () => {
    const [host, port] = stack.settings.temporalAddress.split(':') as [string, string];
    const proxy = await startTcpProxy(host === 'localhost' ? '127.0.0.1' : host, Number(port));
    // As the API connects in production: a few quick retries, no deadline of its own.
    const connection = await Connection.connect({
      address: `127.0.0.1:${proxy.port}`,
      interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 4 }))],
    });
    const temporal = new Client({ connection, namespace: stack.settings.temporalNamespace });
    const frozen = await startTestStack({
      withoutWorker: true,
      env: { TEMPORAL_CALL_TIMEOUT_SECONDS: '1', TEMPORAL_TASK_QUEUE: stack.settings.temporalTaskQueue },
      appOverrides: { temporal },
    });
    try {
      const partner = await makePartner(frozen.orm);
      await registerAccount(frozen.baseUrl, partner.liveKey);
      const client = api(frozen.baseUrl, partner.liveKey);
      const booked = await client.post('/partner/deliveries', bookingBody());
      expect(booked.status).toBe(201);

      proxy.freeze();

      for (const [path, body] of [['/partner/deliveries', bookingBody()], [`/partner/deliveries/${booked.body.id}/cancel`, undefined]] as const) {
        const started = Date.now();
        const res = await client.post(path, body);
        expect(res.status).toBe(503);
        expectEnvelope(res.body, 'unavailable');
        expect(Date.now() - started).toBeLessThan(5_000);
      }
      expect(await deliveriesOf(frozen.orm, partner.partnerId)).toMatchObject([{ id: booked.body.id, status: 'pending' }]);
    } finally {
      await frozen.close();
      await proxy.close();
      await connection.close().catch(() => undefined);
    }
  });
});

describe('requests the HTTP parser refuses', () => {
  it('answers an HTTP/1.1 request without a Host header with the envelope, not a bare 400, and HTTP/1.0 as usual', async () => {
    const noHost = await raw('GET /api/v1/places/autocomplete?q=osu HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(noHost).toMatch(/^HTTP\/1\.1 400 /);
    expect(noHost).toMatch(/\r\ncontent-type: application\/json/i);
    expectEnvelope(JSON.parse(noHost.slice(noHost.indexOf('\r\n\r\n') + 4)), 'bad_request');
    const http10 = await raw('GET /api/v1/places/autocomplete?q=osu HTTP/1.0\r\n\r\n');
    expect(http10).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers headers over the size limit with the envelope, not a bare status line', async () => {
    const { liveKey } = await makePartner(stack.orm);
    const res = await api(stack.baseUrl, liveKey).get('/partner/deliveries', { 'X-Padding': 'x'.repeat(20_000) });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expectEnvelope(res.body, 'bad_request');
  });
});
