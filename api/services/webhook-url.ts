import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../errors';

/**
 * Checks a callback URL when it is set. In production it must be HTTPS and every address its
 * host resolves to must be public unicast (not private, loopback, link-local, mapped or reserved).
 * The check is repeated at send time by the filtering agent, which also defeats DNS rebinding.
 */
export async function checkWebhookUrl(raw: string, production: boolean): Promise<string> {
  let url: URL;
  try {
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
  if (!production) return url.toString();
  if (url.protocol !== 'https:') throw ApiError.badRequest('webhook_url must be an HTTPS URL', { webhook_url: 'must use https' });

  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    throw ApiError.badRequest('webhook_url host does not resolve', { webhook_url: 'the host name does not resolve' });
  }
  for (const address of addresses) {
    const range = ipaddr.process(address).range();
    if (range !== 'unicast') {
      throw ApiError.badRequest(`webhook_url points at a ${range} address, which is not allowed`, {
        webhook_url: `resolves to a ${range} address (${address})`,
      });
    }
  }
  return url.toString();
}
