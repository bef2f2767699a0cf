import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from './config';

export type Orm = MikroORM;

export async function initOrm(databaseUrl: string, poolMax?: number): Promise<Orm> {
  const orm = await MikroORM.init(ormConfig(databaseUrl, poolMax));
  keepValuesOutOfErrors(orm);
  return orm;
}

/** A string value as MikroORM writes it into SQL: `'it''s'`, `E'\\x00'`. */
const SQL_STRING = /E?'(?:[^']|'')*'/g;

/** The step every ORM query runs through, with its SQL (a protected method in MikroORM 7). */
interface QueryStep {
  executeQuery<T>(query: string, run: () => Promise<T>, context?: unknown): Promise<T>;
}

/**
 * A failed query's error says which query failed, but none of the values it carried: a connection
 * dropped while a webhook secret, a key hash or a hand-over code's text is written would otherwise
 * carry the value into the logs (and into Temporal's record of a failed activity). The error keeps
 * the query, with each string value written as '…' (MikroORM writes values into the SQL it logs
 * when parameter logging is on), and a constraint's detail loses the row's values.
 * MikroORM 7 runs queries through kysely, whose errors carry no SQL, and has no public hook on a
 * failed query (knex's 'query-error' event is gone); so the connection's query step is wrapped.
 */
export function keepValuesOutOfErrors(orm: Orm): void {
  const connection = orm.em.getConnection() as unknown as QueryStep;
  const executeQuery = connection.executeQuery.bind(connection);
  connection.executeQuery = async <T>(query: string, run: () => Promise<T>, context?: unknown): Promise<T> => {
    try {
      return await executeQuery(query, run, context);
    } catch (error) {
      const failure = error as { message?: unknown; detail?: unknown };
      if (typeof failure.message === 'string') failure.message = `${query.replace(SQL_STRING, "'…'")} - ${failure.message}`;
      if (typeof failure.detail === 'string') failure.detail = failure.detail.replace(/(\)=|contains )\(.*\)/s, '$1(…)');
      throw error;
    }
  };
}

/** Brings the schema up to date. The start scripts run it once, before any API or worker starts. */
export async function migrate(orm: Orm): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((migration) => migration.name);
}
