import { createHash } from 'node:crypto';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, bookingBody, registerAccount, SANDBOX } from '../helpers/bookings';
import { dashboardClient, uniqueEmail } from '../helpers/dashboard';
import { capturingLogger } from '../helpers/captured-logs';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server';
import { apiKeysOf } from '../helpers/db-accounts';
import { deliveryRow } from '../helpers/db-deliveries';
import { riderRow } from '../helpers/db-riders';
import { dropConnectionOnWebhookWrite } from '../helpers/db-faults';
import { readOutbox } from '../../db/sms-outbox';

/** Every line the API and the worker log, at every level, as it would reach the log store. */
const { logger, lines: logLines } = capturingLogger('debug', 'test');

/** Every answer the tests below received, to search for secrets. */
const answers: string[] = [];
function recorded(baseUrl: string, token?: string) {
  const client = api(baseUrl, token);
  const keep = async <T extends { status: number; headers: Headers; body: unknown }>(p: Promise<T>): Promise<T> => {
    const res = await p;
    answers.push(`${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${JSON.stringify(res.body)}`);
    return res;
  };
  return {
    get: (path: string, headers?: Record<string, string>) => keep(client.get(path, headers)),
    post: (path: string, body?: unknown) => keep(client.post(path, body)),
    put: (path: string, body?: unknown) => keep(client.put(path, body)),
    delete: (path: string) => keep(client.delete(path)),
  };
}

let stack: TestStack;
/** A partner endpoint that takes every callback, so signed callbacks really go out. */
let receiver: RecordingServer;
beforeAll(async () => {
  stack = await startTestStack({ appOverrides: { logger }, activityOverrides: { logger } });
  receiver = await startRecordingServer();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

describe('another partner’s or the other mode’s resources (BOLA)', () => {
  it('are unknown (404) to every keyed read and write, and stay untouched', async () => {
    const owner = await makePartner(stack.orm, 'Owner Shop');
    const intruder = await makePartner(stack.orm, 'Intruder Ltd');
    const liveAccount = await registerAccount(stack.baseUrl, owner.liveKey);
    const testAccount = await registerAccount(stack.baseUrl, owner.testKey);
    await registerAccount(stack.baseUrl, intruder.liveKey);
    await registerAccount(stack.baseUrl, intruder.testKey);
    const liveDelivery = await book(stack.baseUrl, owner.liveKey);
    const testDelivery = await book(stack.baseUrl, owner.testKey);
    // The robo rider gives the test delivery its callbacks (logged as skipped: no URL is set).
    const ownerTest = api(stack.baseUrl, owner.testKey);
    const events = await eventually(async () => {
      const list = (await ownerTest.get('/partner/webhook/deliveries?limit=100')).body as { id: string }[];
      return list.length >= 4 ? list : undefined;
    }, 20_000, 'callbacks of the test delivery');
    const eventId = events[0]!.id;

    const etagOf = async (key: string, id: string) => (await api(stack.baseUrl, key).get(`/partner/deliveries/${id}`)).headers.get('etag') as string;
    const owned = [
      { mode: 'live', delivery: liveDelivery.id, account: liveAccount.id, etag: await etagOf(owner.liveKey, liveDelivery.id) },
      { mode: 'test', delivery: testDelivery.id, account: testAccount.id, event: eventId, etag: await etagOf(owner.testKey, testDelivery.id) },
    ];
    const outsiders = [
      { who: 'another partner, live key', key: intruder.liveKey },
      { who: 'another partner, test key', key: intruder.testKey },
    ];
    let checked = 0;
    for (const resource of owned) {
      const otherMode = resource.mode === 'live' ? owner.testKey : owner.liveKey;
      for (const { who, key } of [...outsiders, { who: 'the same partner, other mode', key: otherMode }]) {
        const client = recorded(stack.baseUrl, key);
        const tries = [
          await client.get(`/partner/deliveries/${resource.delivery}`),
          // The owner's tag, or any tag at all, is no way in: 404 before any tag is compared.
          await client.get(`/partner/deliveries/${resource.delivery}`, { 'If-None-Match': resource.etag }),
          await client.get(`/partner/deliveries/${resource.delivery}`, { 'If-None-Match': '*' }),
          await client.post(`/partner/deliveries/${resource.delivery}/cancel`),
          await client.delete(`/partner/payment-methods/${resource.account}`),
          ...(resource.event ? [await client.post(`/partner/webhook/deliveries/${resource.event}/redeliver`)] : []),
        ];
        for (const res of tries) {
          expect({ who, status: res.status, code: (res.body as { error?: { code: string } }).error?.code }).toEqual({ who, status: 404, code: 'not_found' });
          checked += 1;
        }
        const lists = JSON.stringify([
          (await client.get('/partner/deliveries?limit=100')).body,
          (await client.get('/partner/payment-methods')).body,
          (await client.get('/partner/webhook/deliveries?limit=100')).body,
        ]);
        expect(lists).not.toContain(resource.delivery);
        expect(lists).not.toContain(resource.account);
        // Booking on someone else's account is refused like an unknown account.
        const foreignAccount = await client.post('/partner/deliveries', bookingBody({ payment_method_id: resource.account }));
        expect(foreignAccount.status).toBe(400);
        expect(foreignAccount.body).toMatchObject({ error: { code: 'bad_request', details: { payment_method_id: expect.any(String) } } });
      }
    }

    // Nothing changed for the owner.
    const ownerLive = api(stack.baseUrl, owner.liveKey);
    expect((await ownerLive.get(`/partner/deliveries/${liveDelivery.id}`)).body.status).toBe('pending');
    expect(((await ownerLive.get('/partner/payment-methods')).body as { id: string }[]).map((a) => a.id)).toEqual([liveAccount.id]);
    expect(((await ownerTest.get('/partner/payment-methods')).body as { id: string }[]).map((a) => a.id)).toEqual([testAccount.id]);
    process.stdout.write(`authorization: ${checked} cross-partner and cross-mode requests, every one 404\n`);
    await ownerLive.post(`/partner/deliveries/${liveDelivery.id}/cancel`);
  });

  it('keeps one rider out of another rider’s job (404)', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const holder = await makeRider(stack.orm, ACCRA.legon, 'Kojo Holder');
    const other = await makeRider(stack.orm, ACCRA.legon, 'Ama Other');
    const delivery = await book(stack.baseUrl, partner.liveKey, { pickup_lat: ACCRA.legon.lat, pickup_lng: ACCRA.legon.lng });
    const holderApp = api(stack.baseUrl, holder.riderToken);
    await eventually(async () => (await holderApp.post(`/rider/deliveries/${delivery.id}/accept`)).status === 200, 15_000, 'accepted');
    const otherApp = api(stack.baseUrl, other.riderToken);
    for (const action of ['pickup', 'depart', 'deliver']) {
      const res = await otherApp.post(`/rider/deliveries/${delivery.id}/${action}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${delivery.id}`)).body.status).toBe('accepted');
  });
});

describe('mass assignment', () => {
  it('ignores status, total_fare, rider_id, payment_status and other server-owned fields in a booking', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    const quote = await client.post('/partner/quotes', {
      pickup_lat: ACCRA.makola.lat,
      pickup_lng: ACCRA.makola.lng,
      dropoff_lat: ACCRA.airport.lat,
      dropoff_lng: ACCRA.airport.lng,
    });
    const rider = await makeRider(stack.orm, ACCRA.osu, 'Should Not Be Assigned');
    const forged = {
      id: '11111111-1111-4111-8111-111111111111',
      reference: 'DLV-HACKED',
      status: 'delivered',
      total_fare: 0.01,
      base_fare: 0,
      rider_id: rider.riderId,
      payment_status: 'paid',
      partner_id: '22222222-2222-4222-8222-222222222222',
      mode: 'test',
      created_at: '2000-01-01T00:00:00.000Z',
      delivered_at: '2000-01-01T00:00:00.000Z',
    };
    const res = await client.post('/partner/deliveries', bookingBody(forged));
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(forged.id);
    expect(res.body.reference).not.toBe(forged.reference);
    expect(res.body).toMatchObject({ status: 'pending', payment_status: 'pending', rider_id: null, total_fare: quote.body.total_fare });
    const row = await deliveryRow(stack.orm, res.body.id);
    expect(row).toMatchObject({ partner_id: partner.partnerId, mode: 'live', status: 'pending', rider_id: null, payment_status: 'pending' });
    expect(new Date(row!.created_at).getFullYear()).toBeGreaterThan(2000);
    expect((await riderRow(stack.orm, rider.riderId))?.active_delivery_id).toBeNull();
    await client.post(`/partner/deliveries/${res.body.id}/cancel`);
  });

  it('ignores a webhook secret or an id sent with the settings and the account', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    const put = await client.put('/partner/webhook', { webhook_url: 'https://partner.example.com/hooks', webhook_secret: 'chosen-by-attacker' });
    expect(put.status).toBe(200);
    expect(put.body.webhook_secret).not.toBe('chosen-by-attacker');
    const account = await client.post('/partner/payment-methods', {
      provider: 'network_a',
      phone: SANDBOX.ok,
      account_name: 'Shop',
      id: '33333333-3333-4333-8333-333333333333',
      partner_id: '22222222-2222-4222-8222-222222222222',
      deleted_at: '2000-01-01T00:00:00Z',
    });
    expect(account.status).toBe(201);
    expect(account.body.id).not.toBe('33333333-3333-4333-8333-333333333333');
    expect(((await client.get('/partner/payment-methods')).body as { id: string }[]).map((a) => a.id)).toEqual([account.body.id]);
  });
});

describe('secrets in answers and logs', () => {
  it('never shows a key, token, webhook secret, password, code or full phone number where it does not belong', async () => {
    const password = `Correct horse ${Date.now()} battery`;
    const email = uniqueEmail('secrets');
    const dashboard = dashboardClient(stack.baseUrl);
    await dashboard.signUp({ email, password, business_name: 'Secret Keepers' });
    await dashboardClient(stack.baseUrl).logIn(email, password);
    await dashboardClient(stack.baseUrl).logIn(email, `${password} wrong`);

    const partner = await makePartner(stack.orm, 'Secret Keepers');
    const client = recorded(stack.baseUrl, partner.liveKey);
    const recipientPhone = '+233245556677';
    expect((await client.post('/partner/payment-methods', { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Shop' })).status).toBe(201);
    const hook = await client.put('/partner/webhook', { webhook_url: receiver.url });
    const webhookSecret = hook.body.webhook_secret as string;
    expect(webhookSecret).toEqual(expect.any(String));
    const rider = await makeRider(stack.orm, ACCRA.airport, 'Esi Secret');
    const booked = await client.post(
      '/partner/deliveries',
      bookingBody({ verification_method: 'otp', recipient_phone: recipientPhone, pickup_lat: ACCRA.airport.lat, pickup_lng: ACCRA.airport.lng }),
    );
    expect(booked.status).toBe(201);
    const id = booked.body.id as string;
    const riderApp = recorded(stack.baseUrl, rider.riderToken);
    await eventually(async () => (await riderApp.post(`/rider/deliveries/${id}/accept`)).status === 200, 15_000, 'accepted');
    expect((await riderApp.post(`/rider/deliveries/${id}/pickup`)).status).toBe(200);
    expect((await riderApp.post(`/rider/deliveries/${id}/depart`)).status).toBe(200);
    // The code is texted by an activity the workflow does not wait for.
    const otp = await eventually(async () => {
      const [sms] = await readOutbox(stack.orm.em.fork(), recipientPhone);
      return /(\d{6})\s*$/.exec(sms?.body ?? '')?.[1];
    }, 10_000, 'the hand-over code text');
    expect(otp).toMatch(/^\d{6}$/);
    expect((await riderApp.post(`/rider/deliveries/${id}/deliver`, { otp: '000000' === otp ? '111111' : '000000' })).status).toBe(400);
    expect((await riderApp.post(`/rider/deliveries/${id}/deliver`, { otp })).status).toBe(200);
    const publicView = await recorded(stack.baseUrl).get(`/track/${id}/public`);
    await client.get('/partner/webhook');
    await recorded(stack.baseUrl, `${partner.liveKey.slice(0, -2)}xx`).get('/partner/deliveries');
    await eventually(async () => logLines.some((l) => l.includes(id)), 5_000, 'log lines of the delivery');

    const publicText = JSON.stringify(publicView.body);
    for (const phone of [recipientPhone, '245556677', '0245556677']) expect(publicText).not.toContain(phone);
    expect(publicText).not.toMatch(/fare|otp|phone/i);

    const neverAnywhere = { 'live key': partner.liveKey, 'test key': partner.testKey, 'rider token': rider.riderToken, password, otp };
    const neverInLogs = { ...neverAnywhere, 'webhook secret': webhookSecret, 'recipient phone': '245556677', 'account phone': SANDBOX.ok.slice(4) };
    const answersButSecret = answers.filter((a) => !a.includes('webhook_secret'));
    const leaks: string[] = [];
    for (const [what, secret] of Object.entries(neverInLogs)) {
      const line = logLines.find((l) => l.includes(secret));
      if (line) leaks.push(`log has the ${what}: ${line.slice(0, 300)}`);
    }
    for (const [what, secret] of Object.entries(neverAnywhere)) {
      if (answersButSecret.some((a) => a.includes(secret))) leaks.push(`an answer has the ${what}`);
    }
    expect(answers.filter((a) => a.includes(webhookSecret))).toHaveLength(1);
    expect(leaks).toEqual([]);
    process.stdout.write(`secrets: ${logLines.length} log lines and ${answers.length} answers searched, no leak\n`);
  });

  it('keeps a fresh webhook secret out of the log when the database drops the write that stores it', async () => {
    const failingUrl = 'https://db-outage.example.com/hooks';
    const restore = await dropConnectionOnWebhookWrite(stack.orm, failingUrl);
    try {
      const partner = await makePartner(stack.orm);
      const before = logLines.length;
      const res = await api(stack.baseUrl, partner.liveKey).put('/partner/webhook', { webhook_url: failingUrl });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('unavailable');
      const logged = logLines.slice(before).filter((l) => l.includes('webhook_endpoints'));
      // Ops still read which query failed and why, but not the values it carried.
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain('terminating connection due to administrator command');
      expect(logged[0]).not.toContain('whsec_');
      expect(logged[0]).not.toContain(failingUrl);
    } finally {
      await restore();
    }
  });

  it('stores a key and a rider token only as their SHA-256 hashes, and a key’s last-used time once it is used', async () => {
    const partner = await makePartner(stack.orm);
    const rider = await makeRider(stack.orm);
    const sha256 = (secret: string) => createHash('sha256').update(secret).digest('hex');
    const keyRows = () => apiKeysOf(stack.orm, partner.partnerId, 'live');

    const [stored] = await keyRows();
    expect(stored).toMatchObject({ key_hash: sha256(partner.liveKey), last_used_at: null });
    // The dashboard's prefix tells keys apart: the kind and mode, and 4 of the 30 random characters.
    expect(stored!.prefix).toBe(partner.liveKey.slice(0, 12));
    const storedRider = await riderRow(stack.orm, rider.riderId);
    expect(storedRider!.token_hash).toBe(sha256(rider.riderToken));
    for (const [row, secret] of [[stored, partner.liveKey], [storedRider, rider.riderToken]] as const) {
      expect(JSON.stringify(row)).not.toContain(secret.slice(12));
    }

    expect((await api(stack.baseUrl, partner.liveKey).get('/partner/deliveries')).status).toBe(200);
    const used = await eventually(async () => (await keyRows())[0]?.last_used_at ?? undefined, 5_000, 'last_used_at');
    expect(Date.now() - new Date(used).getTime()).toBeLessThan(60_000);
  });
});

describe('security headers and CORS', () => {
  it('sends helmet’s headers and no X-Powered-By on the API and on pages', async () => {
    for (const path of ['/api/v1/partner/deliveries', '/docs/', '/dashboard/login', '/track']) {
      const res = await fetch(`${stack.baseUrl}${path}`);
      expect({ path, poweredBy: res.headers.get('x-powered-by') }).toEqual({ path, poweredBy: null });
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      expect(res.headers.get('referrer-policy')).toMatch(/^(no-referrer|same-origin|strict-origin(-when-cross-origin)?)$/);
      if (path !== '/api/v1/partner/deliveries') {
        expect({ path, csp: res.headers.get('content-security-policy') }).toEqual({ path, csp: expect.stringContaining("default-src 'self'") });
        expect(res.headers.get('x-frame-options') ?? res.headers.get('content-security-policy')).toMatch(/SAMEORIGIN|DENY|frame-ancestors/i);
      }
    }
  });

  it('allows no other origin on keyed and rider routes, and any origin on the public view only', async () => {
    const partner = await makePartner(stack.orm);
    const origin = { Origin: 'https://evil.example' };
    for (const path of ['/api/v1/partner/deliveries', '/api/v1/rider/offers', '/api/v1/places/autocomplete?q=Osu']) {
      const preflight = await fetch(`${stack.baseUrl}${path}`, {
        method: 'OPTIONS',
        headers: { ...origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
      });
      expect({ path, allow: preflight.headers.get('access-control-allow-origin') }).toEqual({ path, allow: null });
      const get = await fetch(`${stack.baseUrl}${path}`, { headers: { ...origin, Authorization: `Bearer ${partner.liveKey}` } });
      expect({ path, allow: get.headers.get('access-control-allow-origin') }).toEqual({ path, allow: null });
    }
    const tracking = await fetch(`${stack.baseUrl}/api/v1/track/00000000-0000-4000-8000-000000000000/public`, { headers: origin });
    expect(tracking.headers.get('access-control-allow-origin')).toBe('*');
    expect(tracking.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
