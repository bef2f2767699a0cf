import type { Request, Response } from 'express';
import type { Html } from '../../web/dashboard/html';
import type { PageContext } from '../../web/dashboard/layout';

/** The page context the dashboard builds for every request (see router.ts). */
export function pageOf(res: Response): PageContext {
  return res.locals.page as PageContext;
}

export function render(res: Response, page: Html, status = 200): void {
  res.status(status).type('html').send(page.value);
}

/**
 * Writes the session now. express-session saves at the end of the response, but it sends the
 * headers first, and a browser follows a redirect on the headers alone: the next page could
 * otherwise load the session before this one's change is stored.
 */
export function saveSession(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.save((error) => (error ? reject(error) : resolve())));
}

/** A message for the next page, then a redirect (POST → redirect → GET, so reloading is harmless). */
export async function redirectWith(req: Request, res: Response, to: string, kind: 'ok' | 'error', text: string): Promise<void> {
  req.session.flash = { kind, text };
  await saveSession(req);
  res.redirect(303, to);
}

/** Only paths inside the dashboard: a `next` or `back` field must never send anyone elsewhere. */
export function safeDashboardPath(value: unknown, fallback = '/dashboard'): string {
  if (typeof value !== 'string') return fallback;
  return /^\/dashboard(?:[/?][A-Za-z0-9/_.?=&%-]*)?$/.test(value) ? value : fallback;
}

/**
 * The `offset` of a paged list as typed in the address bar: a whole number from 0, else 0. A
 * number too large to be exact (`1e20`) is no page anyone reached by following links.
 */
export function pageOffset(value: unknown): number {
  const offset = Number(value);
  return Number.isSafeInteger(offset) && offset > 0 ? offset : 0;
}

/**
 * Trimmed text fields of a submitted form; anything missing or not text becomes ''. A NUL
 * character, which no one types and PostgreSQL text cannot hold, is dropped.
 */
export function formValues<K extends string>(req: Request, names: readonly K[]): Record<K, string> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const out = {} as Record<K, string>;
  for (const name of names) {
    const value = body[name];
    out[name] = typeof value === 'string' ? value.replaceAll('\u0000', '').trim() : '';
  }
  return out;
}

/**
 * The length of a text in characters (code points), as DESIGN section 9's limits and the API's
 * schemas count it: an emoji is one character, where `String.length` counts it as two.
 */
export function characters(text: string): number {
  return [...text].length;
}

/**
 * An address like name@example.com. The domain's labels exclude the dot that separates them, so
 * each character can be matched one way only and the check runs in linear time: the former
 * `[^\s@]+\.[^\s@]+` could split a long run of dots at every point and backtracked quadratically.
 */
export const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

/** At most 254 characters (RFC 5321's path limit), checked before the pattern so no long text reaches it. */
export function isEmailAddress(text: string): boolean {
  return text.length <= 254 && EMAIL.test(text);
}
