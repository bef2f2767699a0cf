import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors';

/** `additional_stops[0].recipient_name`: the same field names the validator's details use. */
function fieldPath(parent: string, key: string | number): string {
  return typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;
}

/**
 * PostgreSQL text cannot hold U+0000, so an address or a name carrying one would fail at the
 * insert and be answered 500. It is the client's text that cannot be kept: 400, naming each
 * field. Mounted on the routes that store a body's text, after the validator has dropped every
 * field no schema knows and before an Idempotency-Key is claimed (nothing was done).
 */
export function storableText(req: Request, _res: Response, next: NextFunction): void {
  const wrong: Record<string, string> = {};
  // Its own stack rather than recursion: how deep a body may nest is the validator's to refuse.
  const pending: [unknown, string][] = [[req.body, '']];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const [value, path] = item;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) wrong[path || 'body'] = 'must not contain the NUL character (U+0000)';
    } else if (Array.isArray(value)) {
      value.forEach((entry, index) => pending.push([entry, fieldPath(path, index)]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, entry] of Object.entries(value)) pending.push([entry, fieldPath(path, key)]);
    }
  }
  if (Object.keys(wrong).length) throw ApiError.badRequest('The request is not valid', wrong);
  next();
}
