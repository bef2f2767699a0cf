// Verifying a callback: `X-Service-Signature: sha256=<lowercase hex HMAC-SHA256 of the raw body>`,
// keyed with the webhook secret (the contract's "Signature"). The scheme signs no timestamp:
// against replays, de-duplicate on `X-Service-Event-Id` (or `delivery_id` plus `status`).
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * True when `signatureHeader` is the service's signature of exactly these bytes. Pass the body as
 * received (a Buffer from `express.raw()` or the request stream): JSON parsed and serialised again
 * may differ in spacing or key order, and then no longer matches. A string is taken as UTF-8.
 */
export function verifyWebhook(
  rawBody: Uint8Array | ArrayBuffer | string,
  signatureHeader: string | string[] | null | undefined,
  secret: string,
): boolean {
  if (typeof signatureHeader !== 'string' || secret === '') return false;
  const bytes = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody instanceof ArrayBuffer ? new Uint8Array(rawBody) : rawBody);
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`);
  const received = Buffer.from(signatureHeader, 'utf8');
  // timingSafeEqual needs equal lengths; the length of a valid header is no secret.
  return received.length === expected.length && timingSafeEqual(received, expected);
}
