import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../api-error';

/** Readable names for the address ranges of ipaddr.js that a callback may not reach. */
const RANGE_NAMES: Record<string, string> = {
  private: 'private',
  uniqueLocal: 'private (IPv6 unique local)',
  carrierGradeNat: 'private (carrier-grade NAT)',
  loopback: 'loopback',
  linkLocal: 'link-local',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  reserved: 'reserved',
};

/**
 * Checks a callback URL when it is set, and returns it as sent (the partner reads back what it
 * wrote, not a normalised form). When guarded (every environment but development and test, as
 * webhooksMayReachPrivateAddresses in config/settings.ts decides) it must be HTTPS and every address its host
 * resolves to must be public unicast (not private, loopback, link-local, mapped or reserved).
 * The check is repeated at send time by the filtering agent, which also defeats DNS rebinding.
 * Unguarded, plain http and loopback are allowed too, and nothing more.
 */
export async function checkWebhookUrl(raw: string, guarded: boolean): Promise<string> {
  let url: URL;
  try {
    // The URL parser would trim outer spaces and encode inner ones; a URL holds none. Nor does it
    // hold an unpaired surrogate, which would be stored as U+FFFD: another URL than the one sent.
    if (/[\s\p{Cc}\p{Cs}]/u.test(raw)) throw new Error('whitespace or unstorable text');
    url = new URL(raw);
  } catch {
    throw ApiError.badRequest('webhook_url is not a valid URL', { webhook_url: 'is not a valid URL' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw ApiError.badRequest('webhook_url must be an HTTPS URL', { webhook_url: 'must use https' });
  }
  if (url.username || url.password) {
    throw ApiError.badRequest('webhook_url must not carry credentials', { webhook_url: 'must not contain a user or password' });
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!guarded) {
    // In development and test only plain http and loopback are let through (DESIGN sections 3 and 7),
    // so a partner can test against a receiver on its own machine. A private or link-local address
    // written in the URL is refused as in production; a host name is not looked up here.
    if (ipaddr.isValid(host)) refuseNonPublic(url, [host], ['loopback']);
    return raw;
  }
  if (url.protocol !== 'https:') throw ApiError.badRequest('webhook_url must be an HTTPS URL', { webhook_url: 'must use https' });

  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    throw ApiError.badRequest('webhook_url host does not resolve', { webhook_url: 'the host name does not resolve' });
  }
  refuseNonPublic(url, addresses, []);
  return raw;
}

/** Refuses the URL when one of its addresses is outside public unicast (and the ranges allowed). */
function refuseNonPublic(url: URL, addresses: string[], allowed: string[]): void {
  for (const address of addresses) {
    const range = ipaddr.process(address).range();
    if (range !== 'unicast' && !allowed.includes(range)) {
      const kind = RANGE_NAMES[range] ?? `non-public, ${range}`;
      throw ApiError.badRequest(`webhook_url must point at a public address; ${url.hostname} is ${kind}`, {
        webhook_url: `resolves to ${address} (${kind}), which is not allowed`,
      });
    }
  }
}
