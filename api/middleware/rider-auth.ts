import type { NextFunction, Request, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import * as riders from '../../db/riders';
import { hashSecret, parseSecret } from '../../domain/api-key';
import { ApiError } from '../errors';
import { bearerToken } from './partner-auth';
import { TokenCache } from './token-cache';

export function riderOf(res: Response): { riderId: string } {
  return res.locals.rider as { riderId: string };
}

/**
 * A rider app sends a request every few seconds (location, offers, each step of a job); a token
 * found valid is trusted this long without asking Postgres again. It bounds how long a token an
 * operator rotated or revoked (`npm run ops`, another process) or one just expired still works.
 */
export const RIDER_AUTH_CACHE_MS = 2000;

const validTokens = new TokenCache<{ riderId: string }>(RIDER_AUTH_CACHE_MS);

/** `Authorization: Bearer rk_…`, a rider token issued by an operator. */
export function riderAuth(orm: MikroORM) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = bearerToken(req);
    if (!token) throw ApiError.unauthorized('Send your rider token as `Authorization: Bearer <token>`');
    if (!parseSecret(token, 'rk')) throw ApiError.unauthorized('The rider token is malformed');
    const hash = hashSecret(token);
    let rider = validTokens.get(hash);
    if (!rider) {
      const found = await riders.findByTokenHash(orm.em.fork(), hash);
      // `reason` lets the rider app say in its own words why it is back at sign-in.
      if (!found) throw ApiError.unauthorized('The rider token is unknown', { reason: 'revoked' });
      if (found.expired) throw ApiError.unauthorized('The rider token has expired; ask an operator for a new one', { reason: 'expired' });
      rider = { riderId: found.riderId };
      validTokens.set(hash, rider);
    }
    res.locals.rider = rider;
    next();
  };
}
