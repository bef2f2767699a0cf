import type { NextFunction, Request, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { hashSecret, parseSecret } from '../../domain/api-key';
import { ApiError } from '../errors';
import { bearerToken } from './partner-auth';

export function riderOf(res: Response): { riderId: string } {
  return res.locals.rider as { riderId: string };
}

/** `Authorization: Bearer rk_…`, a rider token issued by an operator. */
export function riderAuth(orm: MikroORM) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = bearerToken(req);
    if (!token) throw ApiError.unauthorized('Send your rider token as `Authorization: Bearer <token>`');
    if (!parseSecret(token, 'rk')) throw ApiError.unauthorized('The rider token is malformed');
    const [rider] = await orm.em
      .fork()
      .execute<{ id: string }[]>('select id from riders where token_hash = ?', [hashSecret(token)]);
    if (!rider) throw ApiError.unauthorized('The rider token is unknown');
    res.locals.rider = { riderId: rider.id };
    next();
  };
}
