import type { EntityManager } from '@mikro-orm/postgresql';
import { poolQuery, type PoolQuery } from './pool-query';

/** The dashboard's sessions and the key that signs their cookies. */

/** Where connect-pg-simple keeps the sessions (created by the dashboard migration). */
export const SESSION_TABLE = 'dashboard_sessions';

/**
 * What the session store queries through: clients of the ORM's own pool, so there is no second
 * pool to size or close. connect-pg-simple asks only for `query`.
 */
export function storePool(em: EntityManager): PoolQuery {
  return poolQuery(em);
}

/**
 * The stored cookie secret. `candidate` is stored when none is yet, and the first process to
 * store one wins, so every API process ends up signing with the same key; null only if the row
 * is gone again by the time it is read.
 */
export async function keepCookieSecret(em: EntityManager, candidate: string): Promise<string | null> {
  await em.execute(`insert into dashboard_secrets (name, value) values ('cookie', ?) on conflict (name) do nothing`, [candidate]);
  const [row] = await em.execute<{ value: string }[]>(`select value from dashboard_secrets where name = 'cookie'`);
  return row?.value ?? null;
}

/**
 * Ends the dashboard sessions of a partner: those logged in as it and those whose browser signed
 * up for it (whose confirmation link would log them in), except `keepSid`, the session of the
 * request that asked. Used when a password changes or a pending sign-up is replaced.
 */
export async function endPartnerSessions(em: EntityManager, partnerId: string, keepSid: string | null = null): Promise<void> {
  await em.execute(
    `delete from ${SESSION_TABLE} where (sess->>'partnerId' = ? or sess->>'signedUp' = ?) and sid <> coalesce(?, '')`,
    [partnerId, partnerId, keepSid],
  );
}
