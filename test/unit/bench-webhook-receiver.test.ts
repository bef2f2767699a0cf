import { signatureHeader } from '../../domain/webhook-signature';
import { startWebhookReceiver } from '../../bench/lib/webhook-receiver.mjs';
import { verifyWebhook } from '../../clients/typescript/src';

const secret = 'whsec_bench_secret';
const deliveryId = '3a4f0c9e-8d1b-4c5e-9f2a-7b6d5e4c3b2a';
/** A callback body, laid out as JSON.stringify of its parsed value would not be: the signature is over the bytes as sent. */
const callback = (event: string, id = deliveryId) =>
  JSON.stringify({ event, delivery_id: id, status: event.replace('delivery.', ''), data: { recipient_name: 'Ɛfua Mensah — Osu' } }, null, 1);

let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
beforeEach(async () => {
  receiver = await startWebhookReceiver({ verifyWebhook });
});
afterEach(() => receiver.close());

/** POSTs `body` as the service does, with the given signature header (none when null). */
const post = async (body: string, signature: string | null) => {
  const response = await fetch(receiver.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(signature === null ? {} : { 'X-Service-Signature': signature }) },
    body,
  });
  return { status: response.status, body: await response.text() };
};

describe('the bench’s webhook receiver', () => {
  it('listens on loopback and answers 200 at once', async () => {
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/);
    expect(await post(callback('delivery.accepted'), null)).toEqual({ status: 200, body: '{"ok":true}' });
  });

  it('counts a correctly signed callback as received, with no bad signature, and notes when it arrived', async () => {
    receiver.setSecret(secret);
    const body = callback('delivery.accepted');
    const sentAt = performance.now();
    await post(body, signatureHeader(secret, body));
    const answeredAt = performance.now();
    expect(receiver.counts).toEqual({ received: 1, duplicates: 0, badSignatures: 0 });
    const at = receiver.arrivedAt(deliveryId, 'delivery.accepted');
    expect(at).toBeGreaterThanOrEqual(sentAt);
    expect(at).toBeLessThanOrEqual(answeredAt);
  });

  it('counts a callback signed with another secret, over other bytes, or not signed as a bad signature', async () => {
    receiver.setSecret(secret);
    const body = callback('delivery.accepted');
    await post(body, signatureHeader('whsec_other', body));
    await post(callback('delivery.picked_up'), signatureHeader(secret, body));
    await post(callback('delivery.in_transit'), null);
    await post(callback('delivery.delivered'), 'sha256=');
    expect(receiver.counts).toEqual({ received: 4, duplicates: 0, badSignatures: 4 });
  });

  it('checks no signature before it is told the secret', async () => {
    await post(callback('delivery.accepted'), null);
    expect(receiver.counts).toEqual({ received: 1, duplicates: 0, badSignatures: 0 });
  });

  it('counts the same event for the same delivery twice as a duplicate, and keeps the first arrival', async () => {
    receiver.setSecret(secret);
    const body = callback('delivery.accepted');
    await post(body, signatureHeader(secret, body));
    const first = receiver.arrivedAt(deliveryId, 'delivery.accepted');
    await post(body, signatureHeader(secret, body));
    expect(receiver.counts).toEqual({ received: 2, duplicates: 1, badSignatures: 0 });
    expect(receiver.arrivedAt(deliveryId, 'delivery.accepted')).toBe(first);

    // Another event of that delivery, or that event of another delivery, is no duplicate.
    const next = callback('delivery.picked_up');
    const other = callback('delivery.accepted', 'b1c2d3e4-0000-4000-8000-000000000000');
    await post(next, signatureHeader(secret, next));
    await post(other, signatureHeader(secret, other));
    expect(receiver.counts).toEqual({ received: 4, duplicates: 1, badSignatures: 0 });
  });

  it('knows no arrival for an event that has not come', async () => {
    expect(receiver.arrivedAt(deliveryId, 'delivery.accepted')).toBeNull();
    await post(callback('delivery.accepted'), null);
    expect(receiver.arrivedAt(deliveryId, 'delivery.picked_up')).toBeNull();
    expect(receiver.arrivedAt('another-delivery', 'delivery.accepted')).toBeNull();
  });

  it('counts a body that is not JSON as received, and goes on timing the callbacks after it', async () => {
    expect(await post('not json', null)).toEqual({ status: 200, body: '{"ok":true}' });
    await post(callback('delivery.accepted'), null);
    expect(receiver.counts).toEqual({ received: 2, duplicates: 0, badSignatures: 0 });
    expect(receiver.arrivedAt(deliveryId, 'delivery.accepted')).toEqual(expect.any(Number));
  });

  it('resolves a wait with the arrival time when the event comes later', async () => {
    const waited = receiver.waitFor(deliveryId, 'delivery.accepted', 2_000);
    await post(callback('delivery.accepted'), null);
    const at = await waited;
    expect(at).toEqual(expect.any(Number));
    expect(at).toBe(receiver.arrivedAt(deliveryId, 'delivery.accepted'));
  });

  it('resolves a wait for an event that already came with its arrival time, at once', async () => {
    await post(callback('delivery.accepted'), null);
    await expect(receiver.waitFor(deliveryId, 'delivery.accepted', 0)).resolves.toBe(receiver.arrivedAt(deliveryId, 'delivery.accepted'));
  });

  it('resolves a wait with null when the event does not come in time, and still notes it when it comes later', async () => {
    const started = performance.now();
    await expect(receiver.waitFor(deliveryId, 'delivery.accepted', 50)).resolves.toBeNull();
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(performance.now() - started).toBeLessThan(1_000);
    await post(callback('delivery.accepted'), null);
    expect(receiver.arrivedAt(deliveryId, 'delivery.accepted')).toEqual(expect.any(Number));
  });
});
