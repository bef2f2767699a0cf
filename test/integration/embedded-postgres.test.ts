import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// What `npm start` and `npm test` do with the embedded PostgreSQL, in a project the `postgres`
// user cannot look into (a clone under /root or a `mktemp -d`), run by scripts/lib/embedded-postgres.mjs itself.
const script = `
import { createRequire } from 'node:module';
import { realpathSync } from 'node:fs';
import path from 'node:path';
const { startEmbeddedPostgres, copyDatabase } = await import(new URL('embedded-postgres.mjs', process.env.SCRIPTS_LIB).href);
const { freePort } = await import(new URL('stack.mjs', process.env.SCRIPTS_LIB).href);
const pg = createRequire(process.env.SCRIPTS_LIB)('pg');
const project = process.argv[1];
async function query(url, sql) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}
const result = {};
// npm start: the data is kept from one start to the next.
const kept = path.join(project, '.data', 'postgres');
let server = await startEmbeddedPostgres({ dataDir: kept, port: await freePort() });
await query(server.url, 'create table kept as select 42 as answer');
await server.stop();
server = await startEmbeddedPostgres({ dataDir: kept, port: await freePort() });
result.kept = await query(server.url, 'select answer from kept');
result.keptAt = realpathSync(kept);
await server.stop();
// npm test: a fresh server, and a copy of its database for the second jest lane.
const fresh = path.join(project, '.data', 'test', '1', 'postgres');
server = await startEmbeddedPostgres({ dataDir: fresh, port: await freePort(), fresh: true });
result.freshAt = realpathSync(fresh);
result.served = await query(server.url, "select current_setting('data_directory') as folder");
result.lane = await query(await copyDatabase(server.url, 'delivery_lane2'), 'select current_database() as name');
await server.stop();
process.stdout.write(JSON.stringify(result));
`;

describe('the embedded PostgreSQL in a private folder', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'private-'));
  chmodSync(folder, 0o700);
  const project = path.join(folder, 'app');
  const asRoot = process.getuid?.() === 0;
  afterAll(() => {
    // The kept data lives outside the project when it had to move; nothing else removes it.
    const kept = path.join(project, '.data', 'postgres');
    if (existsSync(kept) && !realpathSync(kept).startsWith(folder)) rmSync(path.dirname(realpathSync(kept)), { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  });

  it('starts, keeps its data between starts, copies a database, and leaves no fresh data behind', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, project], {
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, SCRIPTS_LIB: pathToFileURL(path.join(__dirname, '..', '..', 'scripts', 'lib') + path.sep).href },
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as {
      kept: { answer: number }[];
      keptAt: string;
      freshAt: string;
      served: { folder: string }[];
      lane: { name: string }[];
    };
    expect(result.kept).toEqual([{ answer: 42 }]);
    expect(result.lane).toEqual([{ name: 'delivery_lane2' }]);
    if (asRoot) {
      // PostgreSQL runs as the postgres user, who cannot reach this folder: the data is elsewhere.
      expect(result.served).toEqual([{ folder: result.freshAt }]);
      expect(result.keptAt.startsWith(folder)).toBe(false);
      expect(result.freshAt.startsWith(folder)).toBe(false);
      expect(existsSync(path.dirname(result.freshAt))).toBe(false);
    }
  }, 100_000);
});
