import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../api-error';

/** `additional_stops[0].recipient_name`: the same field names the validator's details use. */
function fieldPath(parent: string, key: string | number): string {
  return typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;
}

/**
 * A UTF-16 surrogate with no partner: JSON can carry one (`"\ud800"`), UTF-8 cannot, so it would
 * be written to PostgreSQL as U+FFFD and read back as another text than the one sent.
 */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/** Why a string cannot be stored as sent, or null when it can. */
function unstorable(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (UNPAIRED_SURROGATE.test(text)) return 'must be valid Unicode text (it holds an unpaired surrogate)';
  return null;
}

/**
 * PostgreSQL text cannot hold U+0000, so an address or a name carrying one would fail at the
 * insert and be answered 500; an unpaired surrogate would be stored as U+FFFD. It is the client's
 * text that cannot be kept: 400, naming each field. Mounted on the routes that store a body's
 * text, after the validator has dropped every field no schema knows and before an
 * Idempotency-Key is claimed (nothing was done).
 */
export function storableText(req: Request, _res: Response, next: NextFunction): void {
  const wrong: Record<string, string> = {};
  // Its own stack rather than recursion: how deep a body may nest is the validator's to refuse.
  const pending: [unknown, string][] = [[req.body, '']];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const [value, path] = item;
    if (typeof value === 'string') {
      const problem = unstorable(value);
      if (problem) wrong[path || 'body'] = problem;
    } else if (Array.isArray(value)) {
      value.forEach((entry, index) => pending.push([entry, fieldPath(path, index)]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, entry] of Object.entries(value)) pending.push([entry, fieldPath(path, key)]);
    }
  }
  if (Object.keys(wrong).length) throw ApiError.badRequest('The request is not valid', wrong);
  next();
}
