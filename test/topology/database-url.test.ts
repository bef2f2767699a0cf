import { readFileSync, writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { checkDatabaseUrl } from '../../scripts/lib/database-url.mjs';
import { ensureTemporalServer, setupTemporalDatabases } from '../../scripts/lib/temporal-server.mjs';

/**
 * `npm run topology` with a DATABASE_URL of a developer's machine: PostgreSQL trusting local
 * connections, so the URL carries no password. This run's PostgreSQL asks every user for one; for
 * these tests it trusts one more role from 127.0.0.1, as such a machine does.
 */
const adminUrl = process.env.TEST_DATABASE_URL as string;
const role = `trusted_${process.pid}`;
const databases = { temporal: `${role}_temporal`, visibility: `${role}_visibility` };
let admin: Client;
let hbaFile: string;
let hbaBefore: string;
let trustedUrl: string;

beforeAll(async () => {
  admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  hbaFile = (await admin.query<{ hba_file: string }>('show hba_file')).rows[0]!.hba_file;
  hbaBefore = readFileSync(hbaFile, 'utf8');
  writeFileSync(hbaFile, `host all ${role} 127.0.0.1/32 trust\n${hbaBefore}`);
  await admin.query('select pg_reload_conf()');
  await admin.query(`create role ${role} login createdb`);
  const url = new URL(adminUrl);
  url.username = role;
  url.password = '';
  url.hostname = '127.0.0.1';
  trustedUrl = url.toString();
});

afterAll(async () => {
  for (const name of Object.values(databases)) await admin?.query(`drop database if exists ${name}`).catch(() => undefined);
  await admin?.query(`drop role if exists ${role}`).catch(() => undefined);
  if (hbaBefore !== undefined) writeFileSync(hbaFile, hbaBefore);
  await admin?.query('select pg_reload_conf()').catch(() => undefined);
  await admin?.end();
});

describe('a DATABASE_URL for the topology', () => {
  it('may carry no password: the Temporal schema is set up on it', async () => {
    expect(new URL(trustedUrl).password).toBe('');
    await expect(checkDatabaseUrl(trustedUrl)).resolves.toBeUndefined();
    setupTemporalDatabases({ sqlTool: ensureTemporalServer().sql, databaseUrl: trustedUrl, databases });
    const tables = await admin.query<{ datname: string }>('select datname from pg_database where datname = any($1) order by datname', [Object.values(databases)]);
    expect(tables.rows.map((row) => row.datname)).toEqual([databases.temporal, databases.visibility].sort());
  }, 120_000);

  it('that cannot work is told in one sentence naming DATABASE_URL, without its password', async () => {
    const url = new URL(adminUrl);
    const cases: [string, RegExp][] = [
      ['not a url', /^DATABASE_URL is not a URL: /],
      [`mysql://root@${url.host}/delivery`, /^DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/, not mysql:\/\/\.$/],
      [`postgres://postgres:wrong-secret@${url.host}/delivery`, /^DATABASE_URL cannot be used \(postgres:\/\/postgres:•••@.*\): PostgreSQL at .* refused the password of postgres\.$/],
      [`postgres://postgres@${url.host}/delivery`, /^DATABASE_URL cannot be used \(.*\): PostgreSQL at .* asks postgres for a password and the URL gives none\.$/],
      [`postgres://${role}@127.0.0.1:${url.port}/no_such_database`, /^DATABASE_URL cannot be used \(.*\): the database no_such_database does not exist at 127\.0\.0\.1:\d+\.$/],
      ['postgres://postgres@127.0.0.1:1/delivery', /^DATABASE_URL cannot be used \(.*\): nothing listens at 127\.0\.0\.1:1\.$/],
    ];
    for (const [given, told] of cases) {
      const error = await checkDatabaseUrl(given).then(() => null, (e: Error) => e);
      expect([given, error?.message]).toEqual([given, expect.stringMatching(told)]);
      expect(error?.message.split('\n')).toHaveLength(1);
      expect(error?.message).not.toContain('wrong-secret');
    }
  });
});
