import type { EntityManager } from '@mikro-orm/postgresql';
import { poolQuery } from './pool-query';
import { COMMIT_WITHOUT_WAITING_FOR_DISK } from './lossy-commit';

/**
 * Fixed-window rate-limit counters (`rate_limit_counters`), shared by every API process; the
 * database clock decides when a window starts and ends.
 */

/**
 * Adds hits to keys' windows, starting a new window where the old one has passed; answers each
 * window's count and how long it has left by the database clock. One key for a hit that must be
 * exact, many for the hits counted in the process since the last write. Its commit does not wait
 * for the disk: a crash may forget the last hits of a window, never grant more than one window's.
 */
const ADD_HITS = {
  name: 'rate-limit-add-hits',
  text: `insert into rate_limit_counters (key, hits, reset_at)
         select key, hits, now() + window_ms * interval '1 millisecond'
         from unnest($1::text[], $2::integer[], $3::integer[]) as t(key, hits, window_ms), ${COMMIT_WITHOUT_WAITING_FOR_DISK}
         on conflict (key) do update set
           hits = case when rate_limit_counters.reset_at <= now() then excluded.hits else rate_limit_counters.hits + excluded.hits end,
           reset_at = case when rate_limit_counters.reset_at <= now() then excluded.reset_at else rate_limit_counters.reset_at end
         returning key, hits, reset_at, extract(epoch from reset_at - now()) * 1000 as left_ms`,
};

/** A window's count after the hits were added, and the time it has left (`left_ms`). */
export interface CountRow {
  key: string;
  hits: number;
  reset_at: Date;
  left_ms: string | number;
}

/**
 * Adds `hits[i]` to the window of `keys[i]`, each window `windowMs` long (or `windowMs[i]`: one
 * write may carry the hits of budgets with different windows), in one statement. Runs on a
 * client of the pool, outside any transaction: every rate-limited request may write here.
 */
export async function addHits(em: EntityManager, keys: string[], hits: number[], windowMs: number | number[]): Promise<CountRow[]> {
  const windows = typeof windowMs === 'number' ? keys.map(() => windowMs) : windowMs;
  const { rows } = await poolQuery(em).query<CountRow>({ ...ADD_HITS, values: [keys, hits, windows] });
  return rows;
}

/** The count of the key's window that is still running, if any. */
export async function currentWindow(em: EntityManager, key: string): Promise<{ hits: number; reset_at: Date } | undefined> {
  const [row] = await em.execute<{ hits: number; reset_at: Date }[]>('select hits, reset_at from rate_limit_counters where key = ? and reset_at > now()', [
    key,
  ]);
  return row;
}

/** Takes one hit back from the key's running window (never below zero). */
export async function takeBackHit(em: EntityManager, key: string): Promise<void> {
  await em.execute('update rate_limit_counters set hits = greatest(hits - 1, 0) where key = ? and reset_at > now()', [key]);
}

export async function forget(em: EntityManager, key: string): Promise<void> {
  await em.execute('delete from rate_limit_counters where key = ?', [key]);
}

/** Drops windows that ended over a minute ago. */
export async function sweepEnded(em: EntityManager): Promise<void> {
  await em.execute(`delete from rate_limit_counters where reset_at < now() - interval '1 minute'`);
}
