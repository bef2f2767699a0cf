import { createHmac } from 'node:crypto';
import { createPartner } from '../../db/accounts';
import { hashPassword } from '../../api/dashboard/passwords';
import { startTestStack, type TestStack } from '../helpers/stack';
import { dashboardClient, uniqueEmail } from '../helpers/dashboard';
import { api, eventually } from '../helpers/http';
import { book, registerAccount, SANDBOX } from '../helpers/bookings';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server';
import { apiKeysOf } from '../helpers/db-accounts';
import { paymentMethodsOf } from '../helpers/db-payments';
import { testWebhooksOf, webhookEndpointsOf } from '../helpers/db-webhooks';
import { readDeliveryTexts } from '../../db/sms-outbox';
import { Value } from 'typebox/value';
import { TestCallback } from '../../api/openapi/schemas';

const PASSWORD = 'correct horse battery';

let stack: TestStack;
/** A partner's callback endpoint that keeps the raw bytes of every request. */
let receiver: RecordingServer;

beforeAll(async () => {
  stack = await startTestStack({ env: { RATE_LIMIT_AUTH_PER_MINUTE: '1000' } });
  receiver = await startRecordingServer();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

async function account() {
  const email = uniqueEmail();
  const { partnerId } = await createPartner(stack.orm.em.fork(), {
    email,
    businessName: 'Accra Books',
    passwordHash: await hashPassword(PASSWORD),
    confirmed: true,
  });
  const client = dashboardClient(stack.baseUrl);
  await client.logIn(email, PASSWORD);
  return { partnerId, client };
}

async function createKey(client: ReturnType<typeof dashboardClient>, mode: 'test' | 'live' = 'test') {
  const page = await client.submit('/dashboard/keys', '/dashboard/keys', { label: `${mode} server`, mode });
  return /value="(sk_(?:test|live)_[A-Za-z0-9]+)"/.exec(page.text)![1]!;
}

const fieldError = (html: string, name: string) => new RegExp(`id="${name}-error">([^<]+)<`).exec(html)?.[1];

describe('dashboard API keys', () => {
  it('takes a label of up to 100 characters (DESIGN section 9) and refuses a longer one, creating nothing', async () => {
    const { partnerId, client } = await account();
    const labels = async () => (await apiKeysOf(stack.orm, partnerId)).map((k) => k.label);

    const tooLong = await client.submit('/dashboard/keys', '/dashboard/keys', { label: 'k'.repeat(101), mode: 'test' });
    expect(tooLong.status).toBe(400);
    expect(fieldError(tooLong.text, 'label')).toBe('Use at most 100 characters');
    expect(await labels()).toEqual([]);

    const longest = await client.submit('/dashboard/keys', '/dashboard/keys', { label: 'k'.repeat(100), mode: 'test' });
    expect(longest.status).toBe(201);
    expect(longest.text).toContain('maxlength="100"');
    expect(await labels()).toEqual(['k'.repeat(100)]);
  });

  it('counts its limits in characters as the API does, so a label or a name of emoji is not cut to half', async () => {
    const { partnerId, client } = await account();
    // 60 characters, 120 UTF-16 code units.
    const label = '📦'.repeat(60);
    const created = await client.submit('/dashboard/keys', '/dashboard/keys', { label, mode: 'test' });
    expect(created.status).toBe(201);
    const tooLong = await client.submit('/dashboard/keys', '/dashboard/keys', { label: '📦'.repeat(101), mode: 'test' });
    expect(tooLong.status).toBe(400);
    expect(fieldError(tooLong.text, 'label')).toBe('Use at most 100 characters');
    expect((await apiKeysOf(stack.orm, partnerId)).map((k) => k.label)).toEqual([label]);

    const accountName = `Ama ${'🛵'.repeat(60)}`;
    const registered = await client.submit('/dashboard/payment-methods', '/dashboard/payment-methods', {
      provider: 'network_a',
      phone: SANDBOX.ok,
      account_name: accountName,
    });
    expect(registered.status).toBe(303);
    expect((await paymentMethodsOf(stack.orm, partnerId)).map((m) => m.account_name)).toEqual([accountName]);
  });

  it('drops a NUL character from what a form sends rather than failing on it', async () => {
    const { partnerId, client } = await account();
    const created = await client.submit('/dashboard/keys', '/dashboard/keys', { label: 'web\u0000 server', mode: 'test' });
    expect(created.status).toBe(201);
    expect((await apiKeysOf(stack.orm, partnerId)).map((k) => k.label)).toEqual(['web server']);
  });
});

describe('dashboard Mobile Money accounts', () => {
  it('registers a number under the name the network holds, and makes the first one the default', async () => {
    const { client } = await account();
    const done = await client.submit('/dashboard/payment-methods', '/dashboard/payment-methods', {
      provider: 'network_a',
      phone: SANDBOX.named,
      account_name: 'Accra Books Ltd',
    });
    expect(done.status).toBe(303);
    const page = await client.get('/dashboard/payment-methods');
    expect(page.text).toContain('registered under the name the network holds, “Ama Serwaa”');
    expect(page.text).toMatch(/<h3>Ama Serwaa<\/h3>\s*<span class="badge badge-default">Default<\/span>/);
  });

  it('shows a number the network does not know next to the phone field, and saves nothing', async () => {
    const { client, partnerId } = await account();
    const page = await client.submit('/dashboard/payment-methods', '/dashboard/payment-methods', {
      provider: 'network_a',
      phone: SANDBOX.missing,
      account_name: 'Accra Books Ltd',
    });
    expect(page.status).toBe(400);
    expect(fieldError(page.text, 'phone')).toBe('This number has no Mobile Money account');
    expect(page.text).toContain(`value="${SANDBOX.missing}"`);
    expect(await paymentMethodsOf(stack.orm, partnerId)).toHaveLength(0);
  });

  it('points at the network field when the number belongs to another network', async () => {
    const { client } = await account();
    const page = await client.submit('/dashboard/payment-methods', '/dashboard/payment-methods', {
      provider: 'network_a',
      phone: SANDBOX.networkB,
      account_name: 'Accra Books Ltd',
    });
    expect(page.status).toBe(400);
    expect(fieldError(page.text, 'provider')).toBe('This number is on Network B; choose that network');
  });

  it('accepts a number typed the local way, changes the default and removes an account', async () => {
    const { client, partnerId } = await account();
    await client.submit('/dashboard/payment-methods', '/dashboard/payment-methods', { provider: 'network_a', phone: '024 123 0001', account_name: 'First' });
    await client.submit('/dashboard/payment-methods', '/dashboard/payment-methods', { provider: 'network_b', phone: '0201234567', account_name: 'Second' });
    const rows = async () => (await paymentMethodsOf(stack.orm, partnerId)).filter((m) => m.deleted_at === null);
    const [first, second] = await rows();
    expect(first).toMatchObject({ phone: '+233241230001', is_default: true });
    expect(second).toMatchObject({ phone: '+233201234567', is_default: false });

    await client.submit('/dashboard/payment-methods', `/dashboard/payment-methods/${second!.id}/default`);
    expect((await rows()).map((r) => r.is_default)).toEqual([false, true]);

    await client.submit('/dashboard/payment-methods', `/dashboard/payment-methods/${second!.id}/remove`);
    const left = await rows();
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ account_name: 'First', is_default: true });
  });
});

describe('dashboard webhook settings', () => {
  it('shows a wrong URL next to its field', async () => {
    const { client } = await account();
    const page = await client.submit('/dashboard/webhook', '/dashboard/webhook', { webhook_url: 'ftp://files.example.com' });
    expect(page.status).toBe(400);
    expect(fieldError(page.text, 'webhook_url')).toBe('Use an address that starts with https://');
  });

  it('sets the URL with a secret shown once, and a test event arrives signed with it', async () => {
    const { client, partnerId } = await account();
    const set = await client.submit('/dashboard/webhook', '/dashboard/webhook', { webhook_url: receiver.url });
    expect(set.status).toBe(200);
    const secret = /value="(whsec_[A-Za-z0-9_-]+)"/.exec(set.text)![1]!;
    expect((await client.get('/dashboard/webhook')).text).not.toContain(secret);

    const sent = await client.submit('/dashboard/webhook', '/dashboard/webhook/test');
    expect(sent.status).toBe(303);
    const arrived = await eventually(
      async () => receiver.requests.find((c) => c.headers['x-service-event'] === 'webhook.test' && JSON.parse(c.body).data && c.body.includes('dashboard') && c.headers['x-service-signature'] === `sha256=${createHmac('sha256', secret).update(c.body).digest('hex')}`),
      10_000,
      'test event',
    );
    expect(JSON.parse(arrived.body)).toMatchObject({ event: 'webhook.test' });
    // What /openapi.json tells receivers to expect of it (its `webhooks`), checked against what was sent.
    expect([...Value.Errors(TestCallback, JSON.parse(arrived.body))]).toEqual([]);

    const [event] = await testWebhooksOf(stack.orm, partnerId);
    const log = await eventually(async () => {
      const page = await client.get('/dashboard/webhook');
      return page.text.includes('HTTP 200') ? page : undefined;
    }, 10_000, 'attempt in the log');
    expect(log.text).toContain('<code>webhook.test</code>');
    expect(log.text).toContain('Delivered');

    const before = receiver.requests.filter((c) => c.headers['x-service-event-id'] === event!.id).length;
    await client.submit('/dashboard/webhook', `/dashboard/webhook/events/${event!.id}/redeliver`, { back: '/dashboard/webhook' });
    await eventually(async () => receiver.requests.filter((c) => c.headers['x-service-event-id'] === event!.id).length > before, 10_000, 'redelivery');
    const again = await eventually(async () => {
      const page = await client.get('/dashboard/webhook');
      return (page.text.match(/HTTP 200/g) ?? []).length >= 2 ? page : undefined;
    }, 10_000, 'second attempt in the log');
    expect(again.text).toContain('Attempt 1');
  });

  it('stops callbacks when the URL is removed', async () => {
    const { client, partnerId } = await account();
    await client.submit('/dashboard/webhook', '/dashboard/webhook', { webhook_url: receiver.url });
    await client.submit('/dashboard/webhook', '/dashboard/webhook/clear');
    const page = await client.get('/dashboard/webhook');
    expect(page.text).toContain('No URL is set');
    expect((await webhookEndpointsOf(stack.orm, partnerId)).find((e) => e.mode === 'test')).toEqual({ mode: 'test', url: null, secret: null });
  });
});

describe('dashboard deliveries', () => {
  it('lists a delivery booked over the API, filters by status and shows its trail, payment and tracking link', async () => {
    const { client } = await account();
    const key = await createKey(client);
    await client.submit('/dashboard/webhook', '/dashboard/webhook', { webhook_url: receiver.url });
    await registerAccount(stack.baseUrl, key);
    const booked = await book(stack.baseUrl, key);
    await eventually(async () => {
      const res = await api(stack.baseUrl, key).get(`/partner/deliveries/${booked.id}`);
      return res.body.status === 'delivered' && res.body.payment_status === 'paid';
    }, 20_000, 'robo delivery');

    const list = await client.get('/dashboard/deliveries');
    expect(list.text).toContain(booked.reference);
    expect((await client.get('/dashboard/deliveries?status=delivered')).text).toContain(booked.reference);
    const cancelled = await client.get('/dashboard/deliveries?status=cancelled');
    expect(cancelled.text).not.toContain(booked.reference);
    expect(cancelled.text).toContain('No test deliveries are cancelled.');

    const detail = await eventually(async () => {
      const page = await client.get(`/dashboard/deliveries/${booked.id}`);
      return (page.text.match(/delivery\.[a-z_]+<\/code>/g) ?? []).length >= 4 && page.text.includes('HTTP 200') ? page : undefined;
    }, 10_000, 'callbacks on the detail page');
    expect(detail.text).toContain(`value="${stack.settings.siteUrl}/track?id=${booked.id}"`);
    for (const status of ['Pending', 'Accepted', 'Picked up', 'In transit', 'Delivered']) expect(detail.text).toContain(`>${status}</span>`);
    expect(detail.text).toMatch(/Payment: <span class="badge badge-paid">Paid<\/span>/);
    expect(detail.text).toContain('<code>delivery.delivered</code>');
  });

  it('shows the texts of the SMS outbox on the delivery they are about, hand-over codes included', async () => {
    const { client } = await account();
    const key = await createKey(client);
    await registerAccount(stack.baseUrl, key);
    const stop = { dropoff_address: 'Osu Castle, Accra', dropoff_lat: 5.5466, dropoff_lng: -0.1846, recipient_name: 'Kojo Antwi', recipient_phone: '+233209876543', package_size: 'small' };
    // Booked for later, so the job stays active (a job's codes go when it ends) while the page is read.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const booked = await book(stack.baseUrl, key, { verification_method: 'otp', additional_stops: [stop], scheduled_at: later });
    const page = await eventually(async () => {
      const res = await client.get(`/dashboard/deliveries/${booked.id}`);
      return (res.text.match(/this code only when you have it: \d{6}/g) ?? []).length === 2 ? res : undefined;
    }, 10_000, 'two codes on the delivery page');
    expect(page.text).toContain('Texts to recipients');
    // Each recipient's own code, as the outbox holds it for that number.
    for (const phone of ['+233209876543', '+233241234567']) {
      const text = (await readDeliveryTexts(stack.orm.em.fork(), booked.id)).find((t) => t.to === phone);
      expect(page.text).toContain(`>${phone}</th>`);
      expect(page.text).toContain(`it: ${text!.body.slice(-6)}</td>`);
    }
    // A delivery without codes shows no texts at all.
    const plain = await book(stack.baseUrl, key);
    expect((await client.get(`/dashboard/deliveries/${plain.id}`)).text).not.toContain('Texts to recipients');
    await api(stack.baseUrl, key).post(`/partner/deliveries/${booked.id}/cancel`);
  });

  it('shows only the data of the chosen mode', async () => {
    const { client } = await account();
    const key = await createKey(client);
    await registerAccount(stack.baseUrl, key);
    const booked = await book(stack.baseUrl, key);
    expect((await client.get('/dashboard/deliveries')).text).toContain(booked.reference);

    await client.submit('/dashboard/deliveries', '/dashboard/mode', { mode: 'live', back: '/dashboard/deliveries' });
    const live = await client.get('/dashboard/deliveries');
    expect(live.text).toContain('Live data');
    expect(live.text).not.toContain(booked.reference);
    expect((await client.get(`/dashboard/deliveries/${booked.id}`)).status).toBe(404);
  });

  it('shows the first page for an offset no link gives: too large to be exact, negative or not a number', async () => {
    const { client } = await account();
    for (const path of ['/dashboard/deliveries', '/dashboard/webhook']) {
      for (const offset of ['1e20', '99999999999999999999', '-5', 'abc']) {
        const page = await client.get(`${path}?offset=${offset}`);
        expect({ path, offset, status: page.status }).toEqual({ path, offset, status: 200 });
      }
    }
  });

  it('does not show another business’s delivery', async () => {
    const owner = await account();
    const key = await createKey(owner.client);
    await registerAccount(stack.baseUrl, key);
    const booked = await book(stack.baseUrl, key);
    const other = await account();
    const page = await other.client.get(`/dashboard/deliveries/${booked.id}`);
    expect(page.status).toBe(404);
    expect(page.text).not.toContain(booked.reference);
  });
});
