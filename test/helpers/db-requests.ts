import type { Orm } from '../../db/orm';
import { ago, rows, write, type Age } from './db';

/** A partner's Idempotency-Key claims, both modes and every scope. */
export function idempotencyKeysOf(orm: Orm, partnerId: string): Promise<{ mode: string; scope: string; key: string; request_hash: string }[]> {
  return rows(orm, 'select mode, scope, key, request_hash from idempotency_keys where partner_id = ? order by key, mode, scope', [partnerId]);
}

/** A claim of a key whose request never got an answer, as an API process that died mid-request leaves it. */
export function leaveUnansweredClaim(
  orm: Orm,
  claim: { partnerId: string; mode: 'live' | 'test'; scope: string; key: string; requestHash: string; age: Age },
): Promise<void> {
  const when = ago(claim.age);
  return write(
    orm,
    `insert into idempotency_keys (partner_id, mode, scope, key, request_hash, created_at) values (?, ?, ?, ?, ?, ${when.sql})`,
    [claim.partnerId, claim.mode, claim.scope, claim.key, claim.requestHash, ...when.params],
  );
}

/** Makes a partner's claims of `key` as old as `age`. */
export function ageIdempotencyKey(orm: Orm, partnerId: string, key: string, age: Age): Promise<void> {
  const when = ago(age);
  return write(orm, `update idempotency_keys set created_at = ${when.sql} where partner_id = ? and key = ?`, [...when.params, partnerId, key]);
}

/** The hits Postgres holds for a rate limit's key, or undefined for none. */
export async function rateLimitHits(orm: Orm, key: string): Promise<number | undefined> {
  const [row] = await rows<{ hits: number }>(orm, 'select hits from rate_limit_counters where key = ?', [key]);
  return row?.hits;
}

/** Forgets the shared rate-limit counters whose keys start with `prefix`. */
export function clearRateLimits(orm: Orm, prefix: string): Promise<void> {
  return write(orm, `delete from rate_limit_counters where key like (? || '%')`, [prefix]);
}
