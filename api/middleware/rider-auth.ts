import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import * as riders from '../../db/riders';
import { hashSecret, parseSecret } from '../../domain/api-key';
import { ApiError } from '../api-error';
import { bearerToken } from './partner-auth';
import { TokenCache } from './token-cache';

export function riderOf(res: Response): { riderId: string } {
  return res.locals.rider as { riderId: string };
}

/**
 * How often each API process reads which riders' tokens were issued again or revoked (by
 * `npm run ops`, a sign-in link, or another process) and forgets them: a revoked token stops
 * working everywhere within about this long.
 */
export const RIDER_TOKEN_CHANGES_READ_EVERY_MS = 1000;

/**
 * How long a token found valid is trusted without asking Postgres again, at most (and never past
 * its expiry). Longer than a phone's ping interval, so a ping costs no lookup; revocations are
 * heard by the reads above, and a process that cannot read them forgets every token it holds.
 */
export const RIDER_AUTH_CACHE_MS = 60_000;

/**
 * The valid tokens one app remembers, kept honest by reading the token changes every second while
 * riders are about. The reads start with the first rider request and stop for good once the ORM
 * is closed (a test stack, a stopping process), so nothing outlives the app. One per app: the
 * rider routes and the ping's fast path (api/rider/location-fast-path.ts) check tokens through it.
 */
export class RiderTokens {
  /** Room for every rider of a large city, each token held by one phone. */
  private readonly valid = new TokenCache<{ riderId: string }>(RIDER_AUTH_CACHE_MS, 100_000);
  private timer: NodeJS.Timeout | undefined;
  private lastRead: Date | null = null;

  constructor(private readonly orm: MikroORM) {}

  /** `Authorization: Bearer rk_…`, a rider token issued by an operator: its rider, or the 401 to answer. */
  async check(req: IncomingMessage): Promise<{ riderId: string }> {
    const token = bearerToken(req);
    if (!token) throw ApiError.unauthorized('Send your rider token as `Authorization: Bearer <token>`');
    if (!parseSecret(token, 'rk')) throw ApiError.unauthorized('The rider token is malformed');
    const hash = hashSecret(token);
    this.startReading();
    const known = this.valid.get(hash);
    if (known) return known;
    const found = await riders.findByTokenHash(this.orm.em.fork(), hash);
    // `reason` lets the rider app say in its own words why it is back at sign-in.
    if (!found) throw ApiError.unauthorized('The rider token is unknown', { reason: 'revoked' });
    if (found.expired) throw ApiError.unauthorized('The rider token has expired; ask an operator for a new one', { reason: 'expired' });
    const rider = { riderId: found.riderId };
    this.valid.set(hash, rider, found.expiresAt?.getTime());
    return rider;
  }

  private startReading(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.readChanges(), RIDER_TOKEN_CHANGES_READ_EVERY_MS);
    this.timer.unref();
  }

  private async readChanges(): Promise<void> {
    try {
      const { riderIds, now } = await riders.tokensChangedSince(this.orm.em, this.lastRead);
      this.lastRead = now;
      if (riderIds.length > 0) {
        const changed = new Set(riderIds);
        this.valid.deleteWhere((rider) => changed.has(rider.riderId));
      }
    } catch {
      // Revocations cannot be heard: trust nothing remembered, and read from where it stopped.
      this.valid.clear();
      if (!(await this.orm.isConnected().catch(() => false))) {
        this.timer = undefined;
        return;
      }
    }
    this.timer = setTimeout(() => void this.readChanges(), RIDER_TOKEN_CHANGES_READ_EVERY_MS);
    this.timer.unref();
  }
}

/** The rider routes' token check: `res.locals.rider` is the rider of a valid token. */
export function riderAuth(tokens: RiderTokens) {
  return async (req: Request, res: Response, next: NextFunction) => {
    res.locals.rider = await tokens.check(req);
    next();
  };
}
