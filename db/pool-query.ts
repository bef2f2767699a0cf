import type { EntityManager } from '@mikro-orm/postgresql';
import type { PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';

export interface PoolQuery {
  query<R extends QueryResultRow>(query: string | QueryConfig, values?: unknown[]): Promise<QueryResult<R>>;
}

/**
 * Queries straight on a client of the ORM's own pool (no second pool to size or close): for a
 * library that wants a `pg` pool (the dashboard's session store), and for the hottest reads, where
 * the ORM's and kysely's layers cost more than the query itself.
 */
export function poolQuery(em: EntityManager): PoolQuery {
  // A pool client is a second connection: it would not see the transaction's own writes.
  if (em.isInTransaction()) throw new Error('poolQuery runs outside transactions; use the transaction\'s em.execute');
  return {
    query: <R extends QueryResultRow>(query: string | QueryConfig, values?: unknown[]) =>
      withPoolClient(em, (client) => client.query<R>(query, values)),
  };
}

/**
 * Runs `work` in one transaction on one client of the ORM's pool, with the same gain as
 * `poolQuery` for the hottest writes (every status change). Committed when `work` resolves,
 * rolled back when it throws; the error is rethrown as it came (a `pg` error, with its `code`).
 */
export async function poolTransaction<T>(em: EntityManager, work: (tx: PoolQuery) => Promise<T>): Promise<T> {
  if (em.isInTransaction()) throw new Error('poolTransaction runs outside transactions');
  return withPoolClient(em, async (client) => {
    await client.query('begin');
    let result: T;
    try {
      result = await work(client);
    } catch (error) {
      // A broken connection cannot roll back, and needs not: Postgres ends its transaction.
      await client.query('rollback').catch(() => undefined);
      throw error;
    }
    await client.query('commit');
    return result;
  });
}

/**
 * Lends `work` one client of the ORM's pool (the `pg` Pool under its kysely dialect), and takes it
 * back however `work` ends. A client whose connection broke is not queryable any more, and the pool
 * drops it on release rather than lend it again.
 */
async function withPoolClient<T>(em: EntityManager, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const pool = await em.getConnection().getNativeClient();
  const client = await pool.connect();
  try {
    return await work(client);
  } finally {
    client.release();
  }
}
