// The local stack: Temporal dev server, PostgreSQL (embedded unless DATABASE_URL is given,
// embedded-postgres.mjs), migrations. Used by `npm start`, `npm test` and `npm run bench`.
import { spawnSync } from 'node:child_process';
import { spawnGroup } from './process-group.mjs';
import { mkdirSync, openSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { root, say } from './prepare.mjs';


/** The search attributes the workflows set (workflows/messages.ts), each `Name=Type`, as the CLI takes them. */
export const SEARCH_ATTRIBUTES = ['DeliveryStatus=Keyword', 'PaymentStatus=Keyword', 'PartnerId=Keyword', 'DeliveryReference=Keyword', 'NeedsAttention=Bool'];

/**
 * Dynamic config that makes the dev server behave like a production cluster where it matters for
 * speed (docs/decisions/0098-dev-server-settings.md):
 * - the CLI forces a search-attribute cache refresh on every read, so every workflow start and
 *   search-attribute upsert also read cluster metadata through its single SQLite connection;
 *   ours are all registered when the server starts, so the cache is always right;
 * - eager activity execution hands an activity scheduled by a workflow task straight back to the
 *   worker that completed the task, skipping a round trip through the task queue;
 * - the history cache holds the city's deliveries in flight (2,000 at its peak) on the dev
 *   server's one shard: at its default of 512 a message to a delivery not held there reads the
 *   workflow's state back from SQLite (docs/decisions/0174-history-cache-for-the-city.md).
 */
export const DEV_SERVER_DYNAMIC_CONFIG = {
  'system.forceSearchAttributesCacheRefreshOnRead': false,
  'system.enableActivityEagerExecution': true,
  'history.cacheMaxSize': 4096,
};

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export function portInUse(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(check, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not come up within ${timeoutMs / 1000} s`);
}

/**
 * Starts `temporal server start-dev` with the search attributes ops staff filter on.
 * `dbFile` keeps workflows across restarts; without it the state lives in memory (tests). The
 * file is in WAL mode without an fsync per commit unless `wal` is false: the dev server sends all
 * its writes through one SQLite connection, and WAL more than doubles its throughput
 * (docs/decisions/0080-dev-server-wal.md). A process crash loses nothing; only a power cut could lose the last moments.
 * `extraArgs` go to the CLI as they are.
 */
export async function startTemporal({ cli, port, uiPort, dbFile, wal = true, logFile, headless = false, extraArgs = [] }) {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn'];
  if (dbFile) args.push('--db-filename', dbFile);
  if (dbFile && wal) args.push('--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
  if (headless) args.push('--headless');
  else args.push('--ui-port', String(uiPort));
  for (const attribute of SEARCH_ATTRIBUTES) args.push('--search-attribute', attribute);
  for (const [key, value] of Object.entries(DEV_SERVER_DYNAMIC_CONFIG)) args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  args.push(...extraArgs);
  mkdirSync(path.dirname(logFile), { recursive: true });
  const out = openSync(logFile, 'a');
  const child = spawnGroup(cli, args, { stdio: ['ignore', out, out] });
  let exited = null;
  child.once('exit', (code) => (exited = code));
  await waitFor(async () => {
    if (exited !== null) throw new Error(`Temporal dev server exited (${exited}); see ${logFile}`);
    if (!(await portInUse(port))) return false;
    const health = spawnSync(cli, ['operator', 'cluster', 'health', '--address', `127.0.0.1:${port}`], { encoding: 'utf8' });
    return health.status === 0 && /SERVING/.test(health.stdout);
  }, 'Temporal dev server');
  return {
    address: `127.0.0.1:${port}`,
    uiUrl: headless ? null : `http://localhost:${uiPort}`,
    pid: child.pid,
    stop: () => stopProcess(child),
  };
}

export function stopProcess(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
    setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, 8000).unref();
  });
}

/** Runs the MikroORM migrations against `databaseUrl` in a child process. */
export function migrate(databaseUrl) {
  const result = spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['db/migrate.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`Migrations failed:\n${result.stderr}`);
  say('Database migrated');
}
