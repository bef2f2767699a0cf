import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Twilio's request signature (`X-Twilio-Signature`), as Twilio documents it: the full URL Twilio
 * requested, followed by every POST parameter sorted by name, each name then its value with
 * nothing between; HMAC-SHA1 of that with the account's auth token, in base64. A name sent twice
 * contributes each of its values, sorted.
 */
export function twilioSignature(authToken: string, url: string, params: readonly (readonly [string, string])[]): string {
  const sorted = [...params].sort(([aName, aValue], [bName, bValue]) => compare(aName, bName) || compare(aValue, bValue));
  const signed = sorted.reduce((text, [name, value]) => text + name + value, url);
  return createHmac('sha1', authToken).update(signed, 'utf8').digest('base64');
}

/** True when `header` is the signature of this URL and these parameters; compared in constant time. */
export function hasValidTwilioSignature(
  authToken: string,
  url: string,
  params: readonly (readonly [string, string])[],
  header: string | undefined,
): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const received = Buffer.from(header);
  // timingSafeEqual needs equal lengths, and the length of a valid signature is no secret.
  return received.length === expected.length && timingSafeEqual(received, expected);
}

/** By UTF-16 code unit, as JavaScript's default sort and Twilio's own libraries order names. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
