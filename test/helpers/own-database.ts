import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { initOrm, type Orm } from '../../db/orm';
import { ourProgram } from './child-process';

export interface OwnDatabase {
  url: string;
  /** Open on the database, for the helpers that arrange and read it. */
  orm: Orm;
  /** Closes `orm` and drops the database, whoever is still connected. */
  drop(): Promise<void>;
}

/**
 * A migrated database of the test's own, on the server of `npm test`'s: for what must see a
 * database as only it left it (the demo seed refuses one that any other suite's live key is in).
 */
export async function ownDatabase(label: string): Promise<OwnDatabase> {
  const name = `${label}_${randomUUID().replace(/-/g, '')}`;
  const server = new URL(process.env.TEST_DATABASE_URL as string);
  server.pathname = '/postgres';
  await onServer(server, `create database "${name}"`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  // `npm run migrate`, as the start scripts run it: the migrator's log stays in its output.
  const { command, args, cwd } = ourProgram('db/migrate.ts');
  const migrated = spawnSync(command, args, { cwd, env: { ...process.env, DATABASE_URL: url.toString() }, encoding: 'utf8', timeout: 60_000 });
  if (migrated.status !== 0) throw new Error(`Migrating ${name} failed:\n${migrated.stderr}`);
  const orm = await initOrm(url.toString(), 2);
  return {
    url: url.toString(),
    orm,
    async drop() {
      await orm.close();
      await onServer(server, `drop database if exists "${name}" with (force)`);
    },
  };
}

async function onServer(server: URL, statement: string): Promise<void> {
  const client = new PgClient({ connectionString: server.toString() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
