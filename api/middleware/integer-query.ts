import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../api-error';

/** The page parameters of the lists (mounted on those routes only). */
const INTEGER_QUERY = ['limit', 'offset'] as const;

/**
 * The validator's type coercion turns `Infinity`, `-Infinity` and `1e400` into numbers that pass
 * its integer check, and SQL then fails on them. An integer parameter must be written as one, of
 * any length; the schema then holds it to its range (`limit` 1..100, `offset` 0..2⁵³ − 1).
 */
export function integerQuery(req: Request, _res: Response, next: NextFunction): void {
  const wrong: Record<string, string> = {};
  for (const name of INTEGER_QUERY) {
    const value = req.query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !/^[+-]?\d+$/.test(value.trim())) wrong[name] = 'must be integer';
  }
  if (Object.keys(wrong).length) throw ApiError.badRequest('The request is not valid', wrong);
  next();
}
