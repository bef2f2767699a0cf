import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { deliveryWorkflowId } from '../../domain/reference';
import { setWebhookUrl } from '../helpers/db-webhooks';

/**
 * What a production process needs beyond the test stack's own settings. It runs as staging does
 * (ALLOW_SANDBOX_IN_PRODUCTION): live bookings here are paid on the sandbox network.
 */
const PRODUCTION = {
  NODE_ENV: 'production',
  SITE_URL: 'https://track.example.com.gh',
  ALLOW_SANDBOX_IN_PRODUCTION: 'true',
  METRICS_TOKEN: 'metrics-token-0123456789abcdefghijklmnop',
  PHOTO_STORE: 'local',
};

/** An HTTPS URL on a public address, written as an IP so the check needs no DNS. */
const PUBLIC_URL = 'https://93.184.215.14/hooks/deliveries';

let stack: TestStack;
beforeAll(async () => {
  // Production rules for callback URLs; setting a URL needs no worker.
  stack = await startTestStack({ env: PRODUCTION, withoutWorker: true });
});
afterAll(async () => {
  await stack?.close();
});

describe('callback URL settings', () => {
  it('returns a fresh secret on every PUT and never reads the secret back', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    expect((await client.get('/partner/webhook')).body).toEqual({ webhook_url: null });

    const first = await client.put('/partner/webhook', { webhook_url: PUBLIC_URL });
    const second = await client.put('/partner/webhook', { webhook_url: PUBLIC_URL });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ webhook_url: PUBLIC_URL, webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{32,}$/) });
    expect(second.body.webhook_secret).toEqual(expect.stringMatching(/^whsec_/));
    expect(second.body.webhook_secret).not.toBe(first.body.webhook_secret);

    const read = await client.get('/partner/webhook');
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ webhook_url: PUBLIC_URL });

    const cleared = await client.put('/partner/webhook', { webhook_url: null });
    expect(cleared.body).toEqual({ webhook_url: null, webhook_secret: null });
    expect((await client.get('/partner/webhook')).body).toEqual({ webhook_url: null });
  });

  it('keeps the test-mode URL apart from the live one', async () => {
    const partner = await makePartner(stack.orm);
    await api(stack.baseUrl, partner.testKey).put('/partner/webhook', { webhook_url: PUBLIC_URL });
    expect((await api(stack.baseUrl, partner.liveKey).get('/partner/webhook')).body).toEqual({ webhook_url: null });
    expect((await api(stack.baseUrl, partner.testKey).get('/partner/webhook')).body).toEqual({ webhook_url: PUBLIC_URL });
  });

  it.each([
    ['plain http', 'http://93.184.215.14/hooks', /https/],
    ['a private 10.x address', 'https://10.0.0.7/hooks', /private/],
    ['a private 192.168.x address', 'https://192.168.1.20/hooks', /private/],
    ['the loopback address', 'https://127.0.0.1/hooks', /loopback/],
    ['the link-local metadata address', 'https://169.254.169.254/latest/meta-data', /link-local/],
    ['an IPv4-mapped IPv6 loopback address', 'https://[::ffff:127.0.0.1]/hooks', /loopback/],
    ['a host name that resolves to 127.0.0.1', 'https://localhost/hooks', /loopback/],
  ])('refuses %s in production with 400 and the reason', async (_what, url, reason) => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    await client.put('/partner/webhook', { webhook_url: PUBLIC_URL });

    const res = await client.put('/partner/webhook', { webhook_url: url });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('bad_request');
    expect(res.body.error.message).toEqual(expect.any(String));
    expect(res.body.error.details.webhook_url).toMatch(reason);
    // A refused URL changes nothing.
    expect((await client.get('/partner/webhook')).body).toEqual({ webhook_url: PUBLIC_URL });
  });

  it('refuses an empty string instead of reading it as null, and keeps the URL', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    await client.put('/partner/webhook', { webhook_url: PUBLIC_URL });

    const res = await client.put('/partner/webhook', { webhook_url: '' });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('bad_request');
    expect(Object.keys(res.body.error.details)).toEqual(['webhook_url']);
    expect((await client.get('/partner/webhook')).body).toEqual({ webhook_url: PUBLIC_URL });
  });

  it('keeps the URL exactly as sent, so GET reads back what PUT wrote', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    const bare = 'https://93.184.215.14'; // a parser would add the path's '/'

    const set = await client.put('/partner/webhook', { webhook_url: bare });

    expect(set.status).toBe(200);
    expect(set.body.webhook_url).toBe(bare);
    expect((await client.get('/partner/webhook')).body).toEqual({ webhook_url: bare });
  });

  it('refuses a URL with spaces around it rather than trimming it', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    const res = await client.put('/partner/webhook', { webhook_url: ` ${PUBLIC_URL}` });
    expect(res.status).toBe(400);
    expect(res.body.error.details.webhook_url).toBe('is not a valid URL');
    expect((await client.get('/partner/webhook')).body).toEqual({ webhook_url: null });
  });

  it('refuses a body without webhook_url', async () => {
    const partner = await makePartner(stack.orm);
    const res = await api(stack.baseUrl, partner.liveKey).put('/partner/webhook', {});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('bad_request');
  });
});

describe('callback URL settings outside production', () => {
  let devStack: TestStack;
  beforeAll(async () => {
    devStack = await startTestStack({ withoutWorker: true });
  });
  afterAll(async () => {
    await devStack?.close();
  });

  it('takes plain http and loopback, so a partner can test against a receiver on its own machine', async () => {
    const partner = await makePartner(devStack.orm);
    const client = api(devStack.baseUrl, partner.testKey);
    for (const url of ['http://127.0.0.1:8080/hooks', 'http://localhost:8080/hooks', 'http://[::1]:8080/hooks', 'http://93.184.215.14/hooks']) {
      const res = await client.put('/partner/webhook', { webhook_url: url });
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
    }
  });

  it.each([
    ['a private 10.x address', 'https://10.0.0.7/hooks', /private/],
    ['a private 192.168.x address', 'http://192.168.1.20/hooks', /private/],
    ['the link-local metadata address', 'http://169.254.169.254/latest/meta-data', /link-local/],
    ['an IPv6 unique-local address', 'https://[fd00::1]/hooks', /private/],
    ['the unspecified address', 'http://0.0.0.0:8080/hooks', /unspecified/],
  ])('still refuses %s with 400 and the reason', async (_what, url, reason) => {
    const partner = await makePartner(devStack.orm);
    const client = api(devStack.baseUrl, partner.testKey);
    const res = await client.put('/partner/webhook', { webhook_url: url });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('bad_request');
    expect(res.body.error.details.webhook_url).toMatch(reason);
    expect((await client.get('/partner/webhook')).body).toEqual({ webhook_url: null });
  });
});

describe('sending callbacks in production', () => {
  let prodStack: TestStack;
  beforeAll(async () => {
    prodStack = await startTestStack({ env: PRODUCTION });
  });
  afterAll(async () => {
    await prodStack?.close();
  });

  it('checks the address again at send time: a host that now resolves to loopback is never called, and the event is retried', async () => {
    const calls: string[] = [];
    const receiver = createServer((req, res) => {
      calls.push(req.url ?? '');
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const partner = await makePartner(prodStack.orm);
      await registerAccount(prodStack.baseUrl, partner.liveKey);
      const client = api(prodStack.baseUrl, partner.liveKey);
      expect((await client.put('/partner/webhook', { webhook_url: PUBLIC_URL })).status).toBe(200);
      // The name passed the check when it was set; its DNS now answers with a loopback address (rebinding).
      const rebound = `http://localhost:${(receiver.address() as AddressInfo).port}/hooks`;
      await setWebhookUrl(prodStack.orm, partner.partnerId, rebound);
      const created = await book(prodStack.baseUrl, partner.liveKey);
      expect((await client.post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
      await prodStack.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result();

      expect(calls).toEqual([]);
      const log = (await client.get('/partner/webhook/deliveries')).body as { delivery_id: string; state: string; attempts: { status_code: number | null; error: string }[] }[];
      const logged = log.find((e) => e.delivery_id === created.id)!;
      expect(logged.state).toBe('failed');
      expect(logged.attempts).toHaveLength(6);
      for (const attempt of logged.attempts) {
        expect(attempt.status_code).toBeNull();
        expect(attempt.error).toMatch(/private, loopback or link-local/);
      }
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
