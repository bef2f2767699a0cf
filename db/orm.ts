import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from './config';

export type Orm = MikroORM;

export async function initOrm(databaseUrl: string, poolMax?: number): Promise<Orm> {
  return MikroORM.init(ormConfig(databaseUrl, poolMax));
}

/** Brings the schema up to date. The start scripts run it once, before any API or worker starts. */
export async function migrate(orm: Orm): Promise<string[]> {
  const done = await orm.getMigrator().up();
  return done.map((migration) => migration.name);
}
