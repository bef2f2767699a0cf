import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { KEY_SETTLED_CHANNEL } from './idempotency-notices';
import type { PoolQuery } from './pool-query';

/**
 * `Idempotency-Key`s as Postgres keeps them (`idempotency_keys`), so every API process shares
 * them: a key is claimed by the first request that sends it, then holds that request's answer,
 * or what it made, for repeats.
 */

/** Whose key it is and what for: a key is one partner's, in one mode, for one kind of request. */
export type IdempotencyKeyIds = [partnerId: string, mode: string, scope: string, key: string];

/** The key's name in notices: short, and without the partner's key in it. */
export function keyDigest(ids: IdempotencyKeyIds): string {
  return createHash('sha256').update(JSON.stringify(ids)).digest('base64url').slice(0, 32);
}

/** How long a key is remembered (DESIGN section 9). */
const KEY_TTL = '24 hours';
/**
 * A claim still without an answer this long after it was made belongs to a request whose
 * process died (every request ends well before): the key is free again.
 */
export const ABANDONED_AFTER_MS = 2 * 60_000;
const ABANDONED_AFTER = `${ABANDONED_AFTER_MS} milliseconds`;

export interface StoredKey {
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
  resource_id: string | null;
  /** How long ago the first request claimed the key, by Postgres' clock. */
  age_ms: number;
  /** The first request finished without an answer to replay, keeping what it made. */
  first_finished: boolean;
}

/** Clears every key older than KEY_TTL (each key is also cleared when reused, in `claim`). */
export async function sweepExpired(em: EntityManager): Promise<void> {
  await em.execute(`delete from idempotency_keys where created_at < now() - interval '${KEY_TTL}'`);
}

/**
 * Forgets the key if it is older than KEY_TTL or was abandoned having made nothing, then tries to
 * claim it for a request whose body hashes to `requestHash`. True when this request owns it now.
 */
export async function claim(em: EntityManager, ids: IdempotencyKeyIds, requestHash: string): Promise<boolean> {
  await em.execute(
    `delete from idempotency_keys where partner_id = ? and mode = ? and scope = ? and key = ?
           and (created_at < now() - interval '${KEY_TTL}'
                or (response_status is null and resource_id is null and created_at < now() - interval '${ABANDONED_AFTER}'))`,
    ids,
  );
  const claimed = await em.execute<unknown[]>(
    `insert into idempotency_keys (partner_id, mode, scope, key, request_hash) values (?, ?, ?, ?, ?)
         on conflict do nothing returning key`,
    [...ids, requestHash],
  );
  return claimed.length === 1;
}

/** The key as stored, or undefined when no request holds it. */
export async function find(em: EntityManager, ids: IdempotencyKeyIds): Promise<StoredKey | undefined> {
  const [stored] = await em.execute<StoredKey[]>(
    `select request_hash, response_status, response_body, resource_id,
            (extract(epoch from now() - created_at) * 1000)::float8 as age_ms,
            first_finished_at is not null as first_finished
       from idempotency_keys
         where partner_id = ? and mode = ? and scope = ? and key = ?`,
    ids,
  );
  return stored;
}

/**
 * Ends a request that answered an error: its key is let go of if the request made nothing, so the
 * partner may send it again; a key bound to what it made (kept, for the sweeper to carry on with)
 * is marked finished, so repeats may be answered with it. Repeats waiting on it (in every API
 * process) are told in the same statement; the notice goes at commit.
 */
export async function release(em: EntityManager, ids: IdempotencyKeyIds): Promise<void> {
  await em.execute(
    `with released as (
       delete from idempotency_keys where partner_id = ? and mode = ? and scope = ? and key = ? and resource_id is null returning 1
     ), finished as (
       update idempotency_keys set first_finished_at = now()
        where partner_id = ? and mode = ? and scope = ? and key = ? and resource_id is not null returning 1
     )
     select pg_notify('${KEY_SETTLED_CHANNEL}', ?) from (select 1 from released union all select 1 from finished) settled`,
    [...ids, ...ids, keyDigest(ids)],
  );
}

/** Keeps the answer (`body` as sent, JSON) for repeats of the request to be given, and tells them. */
export async function recordAnswer(em: EntityManager, ids: IdempotencyKeyIds, status: number, body: string): Promise<void> {
  await em.execute(
    `with answered as (
       update idempotency_keys set response_status = ?, response_body = ?
        where partner_id = ? and mode = ? and scope = ? and key = ? returning 1
     )
     select pg_notify('${KEY_SETTLED_CHANNEL}', ?) from answered`,
    [status, body, ...ids, keyDigest(ids)],
  );
}

const BIND_KEY = {
  name: 'idempotency-bind-key',
  text: 'update idempotency_keys set resource_id = $1 where partner_id = $2 and mode = $3 and scope = $4 and key = $5',
};

/**
 * Ties the key to what its request made, inside the transaction `tx` that makes it: once that
 * commits, a repeat of the request is answered with it, even if the request's own answer is lost.
 */
export async function bindToResource(tx: PoolQuery, ids: IdempotencyKeyIds, resourceId: string): Promise<void> {
  await tx.query({ ...BIND_KEY, values: [resourceId, ...ids] });
}

const UNBIND_KEY = {
  name: 'idempotency-unbind-key',
  text: 'update idempotency_keys set resource_id = null where resource_id = $1 and partner_id = $2 and mode = $3 and scope = $4 and key = $5',
};

/**
 * Unties the key from what its request made, inside the transaction `tx` that withdraws it, so the
 * key can be let go of like that of a request that made nothing.
 */
export async function unbindFromResource(tx: PoolQuery, ids: IdempotencyKeyIds, resourceId: string): Promise<void> {
  await tx.query({ ...UNBIND_KEY, values: [resourceId, ...ids] });
}
