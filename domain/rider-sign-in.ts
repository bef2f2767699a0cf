import { randomBytes } from 'node:crypto';

/**
 * The rider app's one-time sign-in link (DESIGN section 10): an operator hands a rider a link (or
 * its QR code); opening it on the phone exchanges its code once for a rider token.
 */

/** How long a sign-in link works: long enough to reach the rider by text or in person. */
export const SIGN_IN_LINK_HOURS = 24;

/** A code as the link carries it: 32 characters of base64url, 192 random bits. */
export const SIGN_IN_CODE = /^[A-Za-z0-9_-]{32}$/;

export function newSignInCode(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The link, with the code after `#`: a fragment never leaves the phone in a request line, so it
 * stays out of server and proxy logs, and the app's page stays one cacheable address.
 */
export function signInLink(siteUrl: string, code: string): string {
  return `${siteUrl.replace(/\/+$/, '')}/rider/sign-in#${code}`;
}
