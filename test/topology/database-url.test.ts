import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
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
/** A role the server trusts too, that may not create databases. */
const plainRole = `${role}_plain`;
const databases = { temporal: `${role}_temporal`, visibility: `${role}_visibility` };
let admin: Client;
let hbaFile: string;
let hbaBefore: string;
let trustedUrl: string;
let silent: Server;
let silentPort: number;
const silentSockets: Socket[] = [];

beforeAll(async () => {
  admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  hbaFile = (await admin.query<{ hba_file: string }>('show hba_file')).rows[0]!.hba_file;
  hbaBefore = readFileSync(hbaFile, 'utf8');
  writeFileSync(hbaFile, `host all ${role} 127.0.0.1/32 trust\nhost all ${plainRole} 127.0.0.1/32 trust\n${hbaBefore}`);
  await admin.query('select pg_reload_conf()');
  await admin.query(`create role ${role} login createdb`);
  await admin.query(`create role ${plainRole} login nocreatedb`);
  const url = new URL(adminUrl);
  url.username = role;
  url.password = '';
  url.hostname = '127.0.0.1';
  trustedUrl = url.toString();
  silent = createServer((socket) => void silentSockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const socket of silentSockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
  for (const name of Object.values(databases)) await admin?.query(`drop database if exists ${name}`).catch(() => undefined);
  await admin?.query(`drop role if exists ${role}`).catch(() => undefined);
  await admin?.query(`drop role if exists ${plainRole}`).catch(() => undefined);
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
      // A server that takes the connection and never answers (a firewall, the wrong service).
      [`postgres://postgres@127.0.0.1:${silentPort}/delivery`, /^DATABASE_URL cannot be used \(.*\): nothing answered at 127\.0\.0\.1:\d+ within 1 s\.$/],
      // Peer authentication: the Unix socket, which the Temporal server cannot use.
      ['postgres:///delivery', /^DATABASE_URL goes through the Unix socket, and the Temporal server connects over TCP only: name a host /],
      ['postgres://postgres@/delivery?host=/var/run/postgresql', /^DATABASE_URL goes through the Unix socket, /],
      ['postgresql://postgres@%2Fvar%2Frun%2Fpostgresql/delivery', /^DATABASE_URL goes through the Unix socket, /],
    ];
    for (const [given, told] of cases) {
      const error = await checkDatabaseUrl(given, { timeoutMs: 1_000 }).then(() => null, (e: Error) => e);
      expect([given, error?.message]).toEqual([given, expect.stringMatching(told)]);
      expect(error?.message.split('\n')).toHaveLength(1);
      expect(error?.message).not.toContain('wrong-secret');
    }
  });

  it('whose user may not create the Temporal databases is told so before anything starts', async () => {
    const url = new URL(trustedUrl);
    url.username = plainRole;
    const error = await checkDatabaseUrl(url.toString(), { databases: Object.values(databases).map((name) => `${name}_new`) }).then(() => null, (e: Error) => e);
    expect(error?.message).toMatch(
      new RegExp(`^DATABASE_URL cannot be used \\(.*\\): ${plainRole} may not create databases, and the Temporal server needs ${databases.temporal}_new and ${databases.visibility}_new there \\(grant it CREATEDB, or create them\\)\\.$`),
    );
    // Databases that are there already need no such right.
    await expect(checkDatabaseUrl(url.toString(), { databases: ['postgres'] })).resolves.toBeUndefined();
  });
});
