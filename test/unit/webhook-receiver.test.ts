import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { signatureHeader } from '../../domain/webhook-signature';
import { deliveryCallbackReceiver, hasValidSignature, type DeliveryCallback } from '../helpers/webhook-receiver';

const root = path.join(__dirname, '..', '..');
const secret = 'whsec_test_secret';
const body = JSON.stringify({
  event: 'delivery.accepted',
  delivery_id: '7f7c3f0e-3b7e-4f5e-9d43-0c0a5a2c9b11',
  status: 'accepted',
  occurred_at: '2026-11-21T14:03:00.000+00:00',
  data: { id: '7f7c3f0e-3b7e-4f5e-9d43-0c0a5a2c9b11', status: 'accepted', recipient_name: 'Ama Serwaa — Osu' },
});

describe('the receiver example in docs/webhook-receiver-example.md', () => {
  it('is, character for character, the receiver the tests run', () => {
    const page = readFileSync(path.join(root, 'docs', 'webhook-receiver-example.md'), 'utf8');
    const example = /## The example receiver[\s\S]*?```ts\n([\s\S]*?)```/.exec(page)?.[1];
    expect(example).toBe(readFileSync(path.join(root, 'test', 'helpers', 'webhook-receiver.ts'), 'utf8'));
  });
});

describe('signature check', () => {
  const raw = Buffer.from(body, 'utf8');

  it('accepts the signature the service computes over the same bytes', () => {
    expect(hasValidSignature(raw, signatureHeader(secret, body), secret)).toBe(true);
  });

  it('refuses a signature made with another secret', () => {
    expect(hasValidSignature(raw, signatureHeader('whsec_other', body), secret)).toBe(false);
  });

  it('refuses a body that was re-serialised, even with the same content', () => {
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(body), null, 1), 'utf8');
    expect(hasValidSignature(reserialised, signatureHeader(secret, body), secret)).toBe(false);
  });

  it('refuses a missing, malformed, truncated or padded header', () => {
    const good = signatureHeader(secret, body);
    expect(hasValidSignature(raw, undefined, secret)).toBe(false);
    expect(hasValidSignature(raw, [good, good], secret)).toBe(false);
    expect(hasValidSignature(raw, good.replace('sha256=', 'sha1='), secret)).toBe(false);
    expect(hasValidSignature(raw, good.slice(0, -2), secret)).toBe(false);
    expect(hasValidSignature(raw, `${good}00`, secret)).toBe(false);
    expect(hasValidSignature(raw, good.toUpperCase().replace('SHA256=', 'sha256='), secret)).toBe(false);
  });
});

describe('receiver over HTTP', () => {
  let server: Server;
  let url: string;
  const handled: DeliveryCallback[] = [];
  let failNext = 0;

  beforeAll(async () => {
    server = createServer(
      deliveryCallbackReceiver({
        secret: () => secret,
        handle: async (callback) => {
          if (failNext > 0) {
            failNext -= 1;
            throw new Error('database unavailable');
          }
          handled.push(callback);
        },
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const send = (payload: string, signature?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(signature ? { 'X-Service-Signature': signature } : {}) },
      body: payload,
    }).then((r) => r.status);

  it('answers 401 to an unsigned or wrongly signed request and handles nothing', async () => {
    expect(await send(body)).toBe(401);
    expect(await send(body, signatureHeader('whsec_other', body))).toBe(401);
    expect(handled).toHaveLength(0);
  });

  it('answers 500 when handling fails, and handles the retry', async () => {
    failNext = 1;
    expect(await send(body, signatureHeader(secret, body))).toBe(500);
    expect(handled).toHaveLength(0);
    expect(await send(body, signatureHeader(secret, body))).toBe(204);
    expect(handled).toHaveLength(1);
  });

  it('acknowledges a duplicate of a handled delivery and status without handling it again', async () => {
    expect(await send(body, signatureHeader(secret, body))).toBe(204);
    expect(handled).toHaveLength(1);
    const next = body.replace(/accepted/g, 'picked_up');
    expect(await send(next, signatureHeader(secret, next))).toBe(204);
    expect(handled.map((c) => c.status)).toEqual(['accepted', 'picked_up']);
  });

  it('acknowledges a signed event of another kind without handling it', async () => {
    const test = JSON.stringify({ event: 'webhook.test', delivery_id: null, status: null, occurred_at: '2026-11-21T14:03:00.000+00:00', data: {} });
    expect(await send(test, signatureHeader(secret, test))).toBe(204);
    expect(handled).toHaveLength(2);
  });
});
