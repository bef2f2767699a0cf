import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { SANDBOX, book, registerAccount } from '../helpers/bookings';
import { startPaystackFake, type PaystackFake } from '../fakes/paystack-fake';
import { capturingLogger } from '../helpers/captured-logs';
import { deliveryWorkflowId } from '../../domain/reference';
import { partnerRow } from '../helpers/db-accounts';
import { debitsOf, ledgerOf } from '../helpers/db-payments';

/**
 * Live keys on Paystack (PAYMENT_GATEWAY=paystack), end to end against the local fake Paystack:
 * our API and worker talk to it over HTTP, and it POSTs its signed callbacks to our API.
 */

/** Sits between us and the fake: passes requests on, or swallows them unanswered, as a Paystack outage would. */
interface Outage {
  baseUrl: string;
  stalled: number;
  set(on: boolean): void;
  close(): Promise<void>;
}

async function startOutageSwitch(target: string): Promise<Outage> {
  let on = false;
  const sockets = new Set<Socket>();
  const state = { stalled: 0 };
  const server = http.createServer((req, res) => {
    if (on) {
      state.stalled += 1;
      return; // Never answered: the caller's timeout decides.
    }
    const upstream = http.request(`${target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get stalled() {
      return state.stalled;
    },
    set(value) {
      on = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Every line the API and the worker log, at every level, as it would reach the log store. */
const { logger, lines: logLines } = capturingLogger('debug', 'test');
let fake: PaystackFake;
let outage: Outage;
let stack: TestStack;
let callbackUrl: string;

beforeAll(async () => {
  fake = await startPaystackFake({
    accounts: {
      '0241234567': { bankCode: 'MTN', accountName: 'Ama Mensah' },
      '0551234567': { bankCode: 'MTN' },
      // Ported from Telecel (020) to MTN.
      '0201234567': { bankCode: 'MTN', accountName: 'Kwesi Boateng' },
    },
  });
  // The customer approves on the phone much later than any test waits: only a callback settles it.
  fake.setBehaviour('71', { kind: 'pay_offline', settleAfterVerifies: 1_000_000, finalStatus: 'success' });
  outage = await startOutageSwitch(fake.baseUrl);
  stack = await startTestStack({
    env: {
      PAYMENT_GATEWAY: 'paystack',
      PAYSTACK_SECRET_KEY: fake.secretKey,
      PAYSTACK_BASE_URL: outage.baseUrl,
      PAYSTACK_TIMEOUT_MS: '1000',
    },
    appOverrides: { logger },
    activityOverrides: { logger },
  });
  callbackUrl = `${stack.baseUrl}/api/v1/payments/paystack/webhook`;
});
afterEach(() => {
  outage?.set(false);
});
afterAll(async () => {
  await stack?.close();
  await outage?.close();
  await fake?.close();
});

const cents = (cedis: number) => Math.round(cedis * 100);
const chargeRequests = () => fake.requests.filter((r) => r.method === 'POST' && r.path === '/charge').length;

async function livePartner(phone: string) {
  const partner = await makePartner(stack.orm);
  const account = await registerAccount(stack.baseUrl, partner.liveKey, phone);
  const row = await partnerRow(stack.orm, partner.partnerId);
  return { ...partner, account, email: row?.email, client: api(stack.baseUrl, partner.liveKey) };
}

async function paymentStatusBecomes(key: string, id: string, wanted: string, timeoutMs = 10_000) {
  return eventually(async () => {
    const res = await api(stack.baseUrl, key).get(`/partner/deliveries/${id}`);
    return res.body.payment_status === wanted ? res.body : undefined;
  }, timeoutMs, `payment_status ${wanted}`);
}

async function requestDebitAttempts(deliveryId: string): Promise<number> {
  const history = await stack.temporal.workflow.getHandle(deliveryWorkflowId(deliveryId)).fetchHistory();
  const events = history.events ?? [];
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'requestDebit');
  const started = events.find((e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId ?? -1) === Number(scheduled?.eventId));
  return started?.activityTaskStartedEventAttributes?.attempt ?? 0;
}

function postCallback(body: string, headers: Record<string, string>) {
  return fetch(callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

describe('registering a live account through Paystack', () => {
  it('stores the holder name Paystack resolves for the number', async () => {
    const partner = await makePartner(stack.orm);
    const res = await api(stack.baseUrl, partner.liveKey).post('/partner/payment-methods', {
      provider: 'network_a',
      phone: '+233241234567',
      account_name: 'Kofi Ventures',
    });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ phone: '+233241234567', provider: 'network_a', account_name: 'Ama Mensah', is_default: true });
    expect(Object.keys(res.body).sort()).toEqual(['account_name', 'created_at', 'id', 'is_default', 'phone', 'provider']);
  });

  it('keeps the name sent when Paystack holds no name for a number in the network’s range', async () => {
    const partner = await makePartner(stack.orm);
    for (const phone of ['+233551234567', '+233541112233']) {
      const res = await api(stack.baseUrl, partner.liveKey).post('/partner/payment-methods', {
        provider: 'network_a',
        phone,
        account_name: 'Kofi Ventures',
      });
      expect({ phone, status: res.status, name: res.body.account_name }).toEqual({ phone, status: 201, name: 'Kofi Ventures' });
    }
  });

  it('refuses a number Paystack places on another network than provider, even a ported one, and saves nothing', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    const ported = await client.post('/partner/payment-methods', { provider: 'network_b', phone: '+233201234567', account_name: 'Kwesi' });
    const wrong = await client.post('/partner/payment-methods', { provider: 'network_c', phone: '+233241234567', account_name: 'Ama' });

    expect([ported.status, ported.body.error?.code]).toEqual([400, 'bad_request']);
    expect([wrong.status, wrong.body.error?.code]).toEqual([400, 'bad_request']);
    expect((await client.get('/partner/payment-methods')).body).toEqual([]);

    const right = await client.post('/partner/payment-methods', { provider: 'network_a', phone: '+233201234567', account_name: 'Kwesi' });
    expect(right.status).toBe(201);
    expect(right.body.account_name).toBe('Kwesi Boateng');
  });

  it('refuses a number Paystack cannot resolve that lies outside every Mobile Money range', async () => {
    const partner = await makePartner(stack.orm);
    const res = await api(stack.baseUrl, partner.liveKey).post('/partner/payment-methods', {
      provider: 'network_a',
      phone: '+233281234567',
      account_name: 'Kofi Ventures',
    });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('bad_request');
  });

  it('answers 503 and saves nothing while Paystack does not answer', async () => {
    const partner = await makePartner(stack.orm);
    outage.set(true);
    const res = await api(stack.baseUrl, partner.liveKey).post('/partner/payment-methods', {
      provider: 'network_a',
      phone: '+233241234567',
      account_name: 'Kofi Ventures',
    });
    outage.set(false);

    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('unavailable');
    expect((await api(stack.baseUrl, partner.liveKey).get('/partner/payment-methods')).body).toEqual([]);
  });

  it('keeps test keys on the sandbox network while live keys use Paystack', async () => {
    const partner = await makePartner(stack.orm);
    const resolvesBefore = fake.requests.filter((r) => r.path === '/bank/resolve').length;
    const account = await api(stack.baseUrl, partner.testKey).post('/partner/payment-methods', {
      provider: 'network_a',
      phone: SANDBOX.named,
      account_name: 'Kofi Ventures',
    });
    expect(account.body.account_name).toBe('Ama Serwaa');

    const booked = await book(stack.baseUrl, partner.testKey);
    await paymentStatusBecomes(partner.testKey, booked.id, 'paid');

    expect(fake.requests.filter((r) => r.path === '/bank/resolve').length).toBe(resolvesBefore);
    expect(fake.charges.has(booked.id)).toBe(false);
    expect(await ledgerOf(stack.orm, booked.id)).toMatchObject([{ state: 'paid' }]);
  });
});

describe('debiting a live booking through Paystack', () => {
  it('charges the booking on Paystack and is confirmed by the signed callback, once even when it comes twice', async () => {
    const partner = await livePartner('+233241239971');
    const before = chargeRequests();
    const booked = await book(stack.baseUrl, partner.liveKey);

    const charge = await eventually(async () => fake.charges.get(booked.id), 5_000, 'the charge on Paystack');
    expect(charge).toMatchObject({
      amount: cents(booked.total_fare),
      currency: 'GHS',
      phone: '0241239971',
      provider: 'mtn',
      email: partner.email,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await partner.client.get(`/partner/deliveries/${booked.id}`)).body.payment_status).toBe('pending');

    const first = await fake.sendWebhook(callbackUrl, booked.id, 'charge.success');
    const second = await fake.sendWebhook(callbackUrl, booked.id, 'charge.success');
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);

    await paymentStatusBecomes(partner.liveKey, booked.id, 'paid');
    expect(chargeRequests() - before).toBe(1);
    expect(await debitsOf(stack.orm, booked.id)).toMatchObject([{ gateway: 'paystack', amount: cents(booked.total_fare), state: 'paid' }]);
    await partner.client.post(`/partner/deliveries/${booked.id}/cancel`);
  });

  it('confirms the booking by polling Paystack when no callback comes', async () => {
    const partner = await livePartner('+233241234501');
    const booked = await book(stack.baseUrl, partner.liveKey);

    await paymentStatusBecomes(partner.liveKey, booked.id, 'paid');

    expect(fake.charges.get(booked.id)?.verifyCount).toBeGreaterThanOrEqual(2);
    await partner.client.post(`/partner/deliveries/${booked.id}/cancel`);
  });

  it('refuses a callback with a bad signature with 401 and changes nothing', async () => {
    const partner = await livePartner('+233241238871');
    const booked = await book(stack.baseUrl, partner.liveKey);
    await eventually(async () => fake.charges.get(booked.id), 5_000, 'the charge on Paystack');
    const body = JSON.stringify({ event: 'charge.success', data: { reference: booked.id, status: 'success' } });
    const signed = (secret: string, bytes: string) => createHmac('sha512', secret).update(bytes).digest('hex');

    const refused = [
      await postCallback(body, {}),
      await postCallback(body, { 'x-paystack-signature': 'not-a-signature' }),
      await postCallback(body, { 'x-paystack-signature': signed('sk_test_someone_else', body) }),
      await postCallback(body, { 'x-paystack-signature': signed(fake.secretKey, body.replace('success', 'failed')) }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String), details: {} } });
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await partner.client.get(`/partner/deliveries/${booked.id}`)).body.payment_status).toBe('pending');

    // The same bytes, rightly signed, are accepted.
    const accepted = await postCallback(body, { 'x-paystack-signature': signed(fake.secretKey, body) });
    expect(accepted.status).toBe(200);
    await paymentStatusBecomes(partner.liveKey, booked.id, 'paid');
    await partner.client.post(`/partner/deliveries/${booked.id}/cancel`);
  });

  it('acknowledges a signed callback for a reference that is not one of ours', async () => {
    const body = JSON.stringify({ event: 'charge.success', data: { reference: randomUUID(), status: 'success' } });
    const res = await postCallback(body, { 'x-paystack-signature': createHmac('sha512', fake.secretKey).update(body).digest('hex') });

    expect(res.status).toBe(200);
  });

  it('ends a declined charge as failed without charging again', async () => {
    const partner = await livePartner('+233241234502');
    const before = chargeRequests();
    const booked = await book(stack.baseUrl, partner.liveKey);

    await paymentStatusBecomes(partner.liveKey, booked.id, 'failed');

    expect(chargeRequests() - before).toBe(1);
    expect(await requestDebitAttempts(booked.id)).toBe(1);
    expect(await debitsOf(stack.orm, booked.id)).toMatchObject([{ state: 'failed', reason: 'Insufficient funds' }]);
    await partner.client.post(`/partner/deliveries/${booked.id}/cancel`);
  });

  it('ends as failed when the customer refuses the charge on the phone', async () => {
    const partner = await livePartner('+233241234506');
    const booked = await book(stack.baseUrl, partner.liveKey);

    await paymentStatusBecomes(partner.liveKey, booked.id, 'failed');
    await partner.client.post(`/partner/deliveries/${booked.id}/cancel`);
  });

  it('retries a Paystack that does not answer, then marks the payment failed with nothing charged', async () => {
    const partner = await livePartner('+233241234500');
    const before = chargeRequests();
    const stalledBefore = outage.stalled;
    outage.set(true);
    const booked = await book(stack.baseUrl, partner.liveKey);

    await paymentStatusBecomes(partner.liveKey, booked.id, 'failed', 30_000);
    outage.set(false);

    expect(await requestDebitAttempts(booked.id)).toBe(5);
    expect(outage.stalled - stalledBefore).toBeGreaterThanOrEqual(5);
    expect(chargeRequests() - before).toBe(0);
    expect(fake.charges.has(booked.id)).toBe(false);
    await partner.client.post(`/partner/deliveries/${booked.id}/cancel`);
  });

  it('finds a charge whose answer timed out instead of charging again, and takes its callback', async () => {
    const partner = await livePartner('+233241234503');
    const before = chargeRequests();
    const booked = await book(stack.baseUrl, partner.liveKey);

    // The charge's answer never comes; the retried request finds the charge and waits on it.
    await eventually(async () => (fake.charges.get(booked.id)?.verifyCount ?? 0) >= 2, 20_000, 'the charge to be polled');
    expect((await partner.client.get(`/partner/deliveries/${booked.id}`)).body.payment_status).toBe('pending');
    expect(await requestDebitAttempts(booked.id)).toBe(2);

    expect((await fake.sendWebhook(callbackUrl, booked.id, 'charge.success')).statusCode).toBe(200);
    await paymentStatusBecomes(partner.liveKey, booked.id, 'paid');
    expect(chargeRequests() - before).toBe(1);
    await partner.client.post(`/partner/deliveries/${booked.id}/cancel`);
  });

  it('takes the callback’s word when the charge was made but Paystack stopped answering our requests', async () => {
    const partner = await livePartner('+233241234503');
    const booked = await book(stack.baseUrl, partner.liveKey);
    await eventually(async () => fake.charges.get(booked.id), 5_000, 'the charge on Paystack');
    outage.set(true);

    expect((await fake.sendWebhook(callbackUrl, booked.id, 'charge.success')).statusCode).toBe(200);
    await eventually(async () => (await requestDebitAttempts(booked.id)) === 5, 30_000, 'the retries to run out');
    outage.set(false);

    await paymentStatusBecomes(partner.liveKey, booked.id, 'paid');
    await partner.client.post(`/partner/deliveries/${booked.id}/cancel`);
  });
});

describe('the Paystack secret key', () => {
  it('never reaches a log line, through answers, refusals, callbacks and outages alike', async () => {
    // Runs last: the tests above logged their registrations, charges, callbacks and outages.
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((line) => line.includes(fake.secretKey))).toEqual([]);
  });
});
