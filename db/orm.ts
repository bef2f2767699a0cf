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

/**
 * MikroORM writes every bound value into the SQL it sends, and the driver puts that SQL at the
 * head of the error when a query fails. Then a connection dropped while a webhook secret, a key
 * hash or a hand-over code's text is written would carry the value into the logs (and into
 * Temporal's record of a failed activity). A failed query's error keeps the query, with each
 * string value written as '…', and a constraint's detail without the row's values.
 */
export function keepValuesOutOfErrors(orm: Orm): void {
  orm.em
    .getConnection()
    .getKnex()
    .on('query-error', (error: { message?: unknown; detail?: unknown }) => {
      if (typeof error.message === 'string') error.message = error.message.replace(SQL_STRING, "'…'");
      if (typeof error.detail === 'string') error.detail = error.detail.replace(/(\)=|contains )\(.*\)/s, '$1(…)');
    });
}

/** Brings the schema up to date. The start scripts run it once, before any API or worker starts. */
export async function migrate(orm: Orm): Promise<string[]> {
  const done = await orm.getMigrator().up();
  return done.map((migration) => migration.name);
}
