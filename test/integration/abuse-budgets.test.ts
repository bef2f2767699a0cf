import { randomUUID } from 'node:crypto';
import { createApiKey, createPartner } from '../../db/accounts';
import type { Orm } from '../../db/orm';
import * as webhookEvents from '../../db/webhook-events';
import { generateSecret } from '../../domain/api-key';
import { hashPassword } from '../../api/dashboard/passwords';
import type { TcpProxy } from '../fakes/tcp-proxy';
import { SANDBOX } from '../helpers/bookings';
import { dashboardClient, uniqueEmail } from '../helpers/dashboard';
import { api } from '../helpers/http';
import { makePartner } from '../helpers/partners';
import { startTestStack, type TestStack } from '../helpers/stack';
import { apiKeysOf } from '../helpers/db-accounts';
import { ormBehindProxy } from '../helpers/db-faults';
import { paymentMethodsOf } from '../helpers/db-payments';
import { testWebhooksOf } from '../helpers/db-webhooks';

// Budgets from the security review: the name check, made-up keys, webhook tests, redeliveries, keys.
const PASSWORD = 'correct horse battery';
const stacks: TestStack[] = [];
const proxies: TcpProxy[] = [];
const orms: Orm[] = [];

async function stackWith(env: Record<string, string>, orm?: Orm): Promise<TestStack> {
  const stack = await startTestStack({ env: { RATE_LIMIT_AUTH_PER_MINUTE: '1000', ...env }, withoutWorker: true, ...(orm ? { appOverrides: { orm } } : {}) });
  stacks.push(stack);
  return stack;
}

/** An ORM whose connections go through a relay the test can cut, closed with the suite. */
async function cuttableOrm(): Promise<{ orm: Orm; proxy: TcpProxy }> {
  const made = await ormBehindProxy();
  proxies.push(made.proxy);
  orms.push(made.orm);
  return made;
}

afterAll(async () => {
  await Promise.all(stacks.map((s) => s.close()));
  for (const proxy of proxies) await proxy.restore();
  await Promise.all(orms.map((o) => o.close()));
  for (const proxy of proxies) await proxy.close();
});

async function dashboardOf(stack: TestStack) {
  const email = uniqueEmail();
  const { partnerId } = await createPartner(stack.orm.em.fork(), { email, businessName: 'Accra Books', passwordHash: await hashPassword(PASSWORD), confirmed: true });
  const client = dashboardClient(stack.baseUrl);
  await client.logIn(email, PASSWORD);
  return { partnerId, client };
}

function expectHourBudgetSpent(res: { status: number; headers: Headers; body: any }, limit: number, what: RegExp): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(what), details: { limit, window_seconds: 3600 } } });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(3600);
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(res.headers.get('ratelimit-policy')).toBe(`${limit};w=3600`);
}

describe('budgets against abuse', () => {
  it('limits payment-method registrations and removals per partner and hour, API and dashboard together', async () => {
    const stack = await stackWith({ PAYMENT_METHOD_CHANGES_PER_HOUR: '3' });
    const { partnerId, client } = await dashboardOf(stack);
    const keyPage = await client.submit('/dashboard/keys', '/dashboard/keys', { label: 'server', mode: 'test' });
    const key = /value="(sk_test_[A-Za-z0-9]+)"/.exec(keyPage.text)![1]!;
    const partner = api(stack.baseUrl, key);

    const first = await partner.post('/partner/payment-methods', { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Shop' });
    expect(first.status).toBe(201);
    expect(first.headers.get('ratelimit-policy')).toBe('3;w=3600');
    expect((await partner.delete(`/partner/payment-methods/${first.body.id}`)).status).toBe(200);
    // The dashboard's form spends the same budget.
    const viaForm = await client.submit('/dashboard/payment-methods', '/dashboard/payment-methods', { provider: 'network_a', phone: SANDBOX.named, account_name: 'Shop' });
    expect(viaForm.status).toBe(303);

    // Spent: the network is not asked for another name, through either door.
    expectHourBudgetSpent(await partner.post('/partner/payment-methods', { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Shop' }), 3, /payment-method changes.*an hour per partner/);
    expectHourBudgetSpent(await partner.delete(`/partner/payment-methods/${randomUUID()}`), 3, /payment-method changes/);
    const refused = await client.submit('/dashboard/payment-methods', '/dashboard/payment-methods', { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Shop' });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many payment method changes');
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(await paymentMethodsOf(stack.orm, partnerId)).toHaveLength(2);
    // Listing is not a change; another partner has a budget of its own.
    expect((await partner.get('/partner/payment-methods')).status).toBe(200);
    const other = await makePartner(stack.orm);
    expect((await api(stack.baseUrl, other.liveKey).post('/partner/payment-methods', { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Shop' })).status).toBe(201);
  });

  it('shares the hourly payment-method budget between two API processes on the Postgres store', async () => {
    const env = { RATE_LIMIT_STORE: 'postgres', PAYMENT_METHOD_CHANGES_PER_HOUR: '2' };
    const first = await stackWith(env);
    const second = await stackWith(env);
    const partner = await makePartner(first.orm);
    const body = { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Shop' };
    expect((await api(first.baseUrl, partner.liveKey).post('/partner/payment-methods', body)).status).toBe(201);
    expect((await api(second.baseUrl, partner.testKey).post('/partner/payment-methods', body)).status).toBe(201);
    expectHourBudgetSpent(await api(first.baseUrl, partner.testKey).post('/partner/payment-methods', body), 2, /payment-method changes/);
    expectHourBudgetSpent(await api(second.baseUrl, partner.liveKey).delete(`/partner/payment-methods/${randomUUID()}`), 2, /payment-method changes/);
  });

  it('refuses made-up keys from an IP past its budget before any key lookup: 429 even with Postgres cut off', async () => {
    const { orm, proxy } = await cuttableOrm();
    const stack = await stackWith({ RATE_LIMIT_PARTNER_IP_PER_MINUTE: '5' }, orm);
    const madeUp = () => api(stack.baseUrl, generateSecret('live', 'sk')).get('/partner/deliveries');
    for (let i = 0; i < 5; i += 1) {
      const res = await madeUp();
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(4 - i));
    }
    // No database from here on: an answer that needed a key lookup would be 503.
    await proxy.cut();
    for (let i = 0; i < 5; i += 1) {
      const res = await madeUp();
      expect(res.status).toBe(429);
      expect(res.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/per IP address/), details: { limit: 5, window_seconds: 60 } });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect((await api(stack.baseUrl, 'sk_live_malformed').get('/partner/deliveries')).status).toBe(429);
  });

  it('refuses made-up rider tokens from an IP past its budget before any token lookup: 429 even with Postgres cut off', async () => {
    const { orm, proxy } = await cuttableOrm();
    const stack = await stackWith({ RATE_LIMIT_RIDER_IP_PER_MINUTE: '3' }, orm);
    const madeUp = () => api(stack.baseUrl, generateSecret('live', 'rk')).get('/rider/offers');
    for (let i = 0; i < 3; i += 1) expect((await madeUp()).status).toBe(401);
    // No database from here on: an answer that needed a token lookup would be 503.
    await proxy.cut();
    const refused = await madeUp();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/per IP address/), details: { limit: 3, window_seconds: 60 } });
    // The partners' budget is their own: this address's partner requests still reach the key check.
    expect((await api(stack.baseUrl, generateSecret('live', 'sk')).get('/partner/deliveries')).status).toBe(503);
  });

  it('needs the key lookup for a made-up key while the IP budget lasts (the control: 503 with Postgres cut off)', async () => {
    const { orm, proxy } = await cuttableOrm();
    const stack = await stackWith({}, orm);
    await proxy.cut();
    expect((await api(stack.baseUrl, generateSecret('live', 'sk')).get('/partner/deliveries')).status).toBe(503);
  });

  it('limits redeliveries per partner and hour, through the API and the dashboard together', async () => {
    const stack = await stackWith({ WEBHOOK_REDELIVERIES_PER_HOUR: '3' });
    const { partnerId, client } = await dashboardOf(stack);
    const keyPage = await client.submit('/dashboard/keys', '/dashboard/keys', { label: 'server', mode: 'live' });
    const partner = api(stack.baseUrl, /value="(sk_live_[A-Za-z0-9]+)"/.exec(keyPage.text)![1]!);
    const eventId = randomUUID();
    await webhookEvents.insertTest(stack.orm.em.fork(), { partnerId, mode: 'live' }, { id: eventId, body: '{}' });

    expect((await partner.post(`/partner/webhook/deliveries/${eventId}/redeliver`)).status).toBe(202);
    // Attempts count, found or not.
    expect((await partner.post(`/partner/webhook/deliveries/${randomUUID()}/redeliver`)).status).toBe(404);
    const viaDashboard = await client.submit('/dashboard/webhook', `/dashboard/webhook/events/${eventId}/redeliver`, { back: '/dashboard/webhook' });
    expect(viaDashboard.status).toBe(303);

    expectHourBudgetSpent(await partner.post(`/partner/webhook/deliveries/${eventId}/redeliver`), 3, /redeliveries.*an hour per partner/);
    const refused = await client.submit('/dashboard/webhook', `/dashboard/webhook/events/${eventId}/redeliver`, { back: '/dashboard/webhook' });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many redeliveries');
  });

  it('limits test webhooks from the dashboard per partner and hour', async () => {
    const stack = await stackWith({ WEBHOOK_TESTS_PER_HOUR: '2' });
    const { partnerId, client } = await dashboardOf(stack);
    expect((await client.submit('/dashboard/webhook', '/dashboard/webhook', { webhook_url: 'http://127.0.0.1:9/hook' })).status).toBe(200);
    expect((await client.submit('/dashboard/webhook', '/dashboard/webhook/test')).status).toBe(303);
    expect((await client.submit('/dashboard/webhook', '/dashboard/webhook/test')).status).toBe(303);
    const refused = await client.submit('/dashboard/webhook', '/dashboard/webhook/test');
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many test webhooks');
    expect(await testWebhooksOf(stack.orm, partnerId)).toHaveLength(2);
  });

  it('lets a partner hold at most API_KEYS_MAX_ACTIVE unrevoked keys, both modes together: one more is refused with 409', async () => {
    const stack = await stackWith({ API_KEYS_MAX_ACTIVE: '3' });
    const { partnerId, client } = await dashboardOf(stack);
    for (const mode of ['test', 'live', 'test']) {
      expect((await client.submit('/dashboard/keys', '/dashboard/keys', { label: `${mode} key`, mode })).status).toBe(201);
    }
    const refused = await client.submit('/dashboard/keys', '/dashboard/keys', { label: 'one too many', mode: 'live' });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('You already have 3 active keys');
    expect(refused.text).not.toMatch(/value="sk_(test|live)_/);
    const keys = () => apiKeysOf(stack.orm, partnerId);
    expect(await keys()).toHaveLength(3);

    // Revoking one makes room; concurrent creations never pass the ceiling.
    await client.submit('/dashboard/keys', `/dashboard/keys/${(await keys())[0]!.id}/revoke`);
    const burst = await Promise.all(Array.from({ length: 3 }, () => client.submit('/dashboard/keys', '/dashboard/keys', { label: 'again', mode: 'test' })));
    expect(burst.map((p) => p.status).sort()).toEqual([201, 409, 409]);
    expect((await keys()).filter((k) => !k.revoked)).toHaveLength(3);
  });
});

describe('test mode’s own budget', () => {
  it('counts a partner’s test-mode requests together, across its test keys, and leaves its live key alone', async () => {
    const stack = await stackWith({ RATE_LIMIT_PARTNER_TEST_PER_MINUTE: '4', RATE_LIMIT_PARTNER_PER_MINUTE: '100' });
    const partner = await makePartner(stack.orm);
    const secondTest = await createApiKey(stack.orm.em.fork(), { partnerId: partner.partnerId, label: 'test 2', mode: 'test' });
    const statuses: number[] = [];
    for (const key of [partner.testKey, secondTest.apiKey, partner.testKey, secondTest.apiKey, partner.testKey]) {
      statuses.push((await api(stack.baseUrl, key).get('/partner/payment-methods')).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const refused = await api(stack.baseUrl, secondTest.apiKey).get('/partner/payment-methods');
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/per partner in test mode/) });
    expect((await api(stack.baseUrl, partner.liveKey).get('/partner/payment-methods')).status).toBe(200);
  });
});

