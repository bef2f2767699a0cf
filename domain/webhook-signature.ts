import { createHmac } from 'node:crypto';

/**
 * The contract's webhook signature: `X-Service-Signature: sha256=<lowercase hex HMAC-SHA256 of
 * the raw body>`, keyed with the partner's webhook secret.
 */
export function signatureHeader(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}
