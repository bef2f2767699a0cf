import type { EntityManager } from '@mikro-orm/postgresql';
import { poolTransaction, type PoolQuery } from './pool-query';

/**
 * Runs `work` in one transaction on a client of the pool (`poolTransaction`), and survives a
 * COMMIT whose acknowledgement was lost (the connection dropped as the answer came back): the
 * transaction then reports a failure though it went through. So on any failure `find` looks, on
 * a fresh connection, for what `work` saves; found, that is the result, since an error would have
 * the caller do the work a second time. Not found, or not able to look, the transaction's own
 * error is thrown.
 */
export async function transactionOrFound<T>(
  em: EntityManager,
  work: (tx: PoolQuery) => Promise<T>,
  find: () => Promise<T | null | undefined>,
): Promise<T> {
  try {
    return await poolTransaction(em, work);
  } catch (error) {
    const saved = await find().catch(() => null);
    if (saved === null || saved === undefined) throw error;
    return saved;
  }
}

/**
 * Reads what a transaction just committed. An error now would tell the caller to do the work
 * again, so the read waits out a Postgres blip (about 7 s in all) before it gives up.
 */
export async function readBackCommitted<T>(read: () => Promise<T>): Promise<T> {
  for (const wait of [100, 300, 1_000, 2_000, 4_000]) {
    try {
      return await read();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
  return read();
}
