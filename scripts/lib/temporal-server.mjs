// The real Temporal server (not the CLI's dev server) on PostgreSQL, for `npm run topology` and
// the topology tests: built once from the Go module proxy at the version the CLI embeds, its
// schema set up by its own SQL tool, configured by the same files as the compose stack
// (temporal-docker/config/temporal-sql.yaml, temporal-docker/dynamicconfig/production-sql.yaml),
// and its namespace prepared by the compose stack's own script (temporal-docker/setup-temporal.sh).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { spawnGroup } from './process-group.mjs';
import { waitUntil } from './wait-until.mjs';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import net from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { root, say } from './prepare.mjs';
import { freePort, portInUse, SEARCH_ATTRIBUTES, stopProcess } from './stack.mjs';

/** The server version the Temporal CLI v1.5.1 embeds, and the UI server it serves. */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
export const TEMPORAL_UI_VERSION = 'v2.42.1';

const SERVER_PACKAGES = { server: 'go.temporal.io/server/cmd/server', sql: 'go.temporal.io/server/cmd/tools/sql' };
const UI_MODULE = 'github.com/temporalio/ui-server/v2';

const DOCKER_DIR = path.join(root, 'temporal-docker');
/** The server reads `<root>/<config>/<env>.yaml`: temporal-docker/config/temporal-sql.yaml. */
const CONFIG = { root: DOCKER_DIR, dir: 'config', env: 'temporal-sql' };
export const DYNAMIC_CONFIG_FILE = path.join(DOCKER_DIR, 'dynamicconfig', 'production-sql.yaml');
const SCHEMA_SCRIPT = path.join(DOCKER_DIR, 'setup-temporal-schema.sh');
const NAMESPACE_SCRIPT = path.join(DOCKER_DIR, 'setup-temporal.sh');

function cacheDir(name, version) {
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), name, version);
}

function goInstall(packages, gobin, what) {
  const hasGo = spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;
  if (!hasGo) throw new Error(`${what} is missing and Go is not installed to build it: install Go (https://go.dev/dl).`);
  mkdirSync(gobin, { recursive: true });
  say(`Building ${what} (go install ${packages.join(' ')}; a few minutes, once)…`);
  const result = spawnSync('go', ['install', ...packages], { stdio: 'inherit', env: { ...process.env, GOBIN: gobin } });
  if (result.status !== 0) throw new Error(`go install ${packages.join(' ')} failed; run it by hand to see why.`);
}

/**
 * The server and its SQL tool at TEMPORAL_SERVER_VERSION, built with `go install` into a folder
 * of that version's own (GOBIN), and reused from there afterwards.
 */
export function ensureTemporalServer() {
  const gobin = process.env.TEMPORAL_SERVER_BIN_DIR ?? cacheDir('temporal-server', TEMPORAL_SERVER_VERSION);
  const binaries = { server: path.join(gobin, 'server'), sql: path.join(gobin, 'sql') };
  if (Object.values(binaries).every((file) => existsSync(file))) return binaries;
  goInstall(
    Object.values(SERVER_PACKAGES).map((pkg) => `${pkg}@${TEMPORAL_SERVER_VERSION}`),
    gobin,
    `the Temporal server ${TEMPORAL_SERVER_VERSION}`,
  );
  return binaries;
}

/**
 * The standalone Temporal UI server at TEMPORAL_UI_VERSION (its web assets are embedded), and the
 * folder of its module, whose config/docker.yaml is what the temporalio/ui image runs. With
 * `build: false`, null when it has not been built yet.
 */
export function ensureTemporalUi({ build = true } = {}) {
  const gobin = cacheDir('temporal-ui-server', TEMPORAL_UI_VERSION);
  const binary = path.join(gobin, 'server');
  const moduleDir = () =>
    JSON.parse(execFileSync('go', ['mod', 'download', '-json', `${UI_MODULE}@${TEMPORAL_UI_VERSION}`], { encoding: 'utf8' })).Dir;
  if (existsSync(binary)) return { binary, moduleDir: moduleDir() };
  if (!build) return null;
  goInstall([`${UI_MODULE}/cmd/server@${TEMPORAL_UI_VERSION}`], gobin, `the Temporal UI ${TEMPORAL_UI_VERSION}`);
  return { binary, moduleDir: moduleDir() };
}

/** What config/temporal-sql.yaml and setup-temporal-schema.sh read, for the PostgreSQL at `databaseUrl`. */
function persistenceEnv(databaseUrl, databases) {
  const url = new URL(databaseUrl);
  return {
    POSTGRES_SEEDS: url.hostname,
    DB_PORT: url.port || '5432',
    POSTGRES_USER: decodeURIComponent(url.username),
    POSTGRES_PWD: decodeURIComponent(url.password),
    DBNAME: databases.temporal,
    VISIBILITY_DBNAME: databases.visibility,
  };
}

export const DEFAULT_DATABASES = { temporal: 'temporal', visibility: 'temporal_visibility' };

/**
 * Creates the server's two databases on the PostgreSQL at `databaseUrl` (its user must be allowed
 * to create databases) and brings their schemas up to date, with the compose stack's script.
 */
export function setupTemporalDatabases({ sqlTool, databaseUrl, databases = DEFAULT_DATABASES }) {
  const result = spawnSync('sh', [SCHEMA_SCRIPT], {
    env: { ...process.env, ...persistenceEnv(databaseUrl, databases), SQL_TOOL: sqlTool },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`Setting up the Temporal schema failed:\n${result.stdout}${result.stderr}`);
}

function healthy(cli, address) {
  const health = spawnSync(cli, ['operator', 'cluster', 'health', '--address', address], { encoding: 'utf8' });
  return health.status === 0 && /SERVING/.test(health.stdout);
}

/**
 * A free port below 32768: the server keeps each service's membership port in a `smallint`
 * column (cluster_membership.rpc_port), so the kernel's ephemeral ports (32768 and up) do not fit.
 */
async function freeMembershipPort() {
  for (let tries = 0; tries < 50; tries++) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(candidate, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return candidate;
  }
  throw new Error('No free port between 20000 and 32000 for the Temporal server membership');
}

/**
 * Creates the namespace and registers the search attributes with the compose stack's own script
 * (temporal-docker/setup-temporal.sh, the CLI found first on its PATH), then checks that every
 * search attribute the scripts know (SEARCH_ATTRIBUTES) is there, so the two lists cannot drift.
 */
export function prepareNamespace({ cli, address, namespace, retention = '720h' }) {
  const env = {
    ...process.env,
    PATH: `${path.dirname(cli)}${path.delimiter}${process.env.PATH ?? ''}`,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_RETENTION: retention,
  };
  const result = spawnSync('sh', [NAMESPACE_SCRIPT], { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`Preparing the namespace ${namespace} failed:\n${result.stdout}${result.stderr}`);
  const listed = spawnSync(cli, ['operator', 'search-attribute', 'list', '--address', address, '--namespace', namespace], { encoding: 'utf8' });
  const missing = SEARCH_ATTRIBUTES.map((attribute) => attribute.split('=')[0]).filter((name) => !new RegExp(`\\b${name}\\b`).test(listed.stdout ?? ''));
  if (missing.length) throw new Error(`Search attributes missing after setup-temporal.sh: ${missing.join(', ')}`);
}

/**
 * Starts the Temporal server (frontend, history, matching and worker services in one process)
 * on PostgreSQL, with the config and dynamic config the compose stack uses. Every port is free
 * (frontend `port`, the others picked), so a second server (a test run) can run beside one.
 * Returns { address, namespace, metricsUrl, pid, stop, restart, kill }: `restart` stops it (`signal`,
 * SIGTERM by default) and starts it again on the same ports and databases.
 */
export async function startTemporalServer({
  server,
  sqlTool,
  cli,
  databaseUrl,
  databases = DEFAULT_DATABASES,
  port,
  namespace = 'deliveries',
  logFile,
  metricsPort,
  logLevel = 'warn',
  startTimeoutMs = 90_000,
}) {
  port ??= await freePort();
  if (await portInUse(port)) throw new Error(`Port ${port} (for the Temporal frontend) is already in use.`);
  if (sqlTool) setupTemporalDatabases({ sqlTool, databaseUrl, databases });
  const ports = {
    FRONTEND_GRPC_PORT: port,
    FRONTEND_HTTP_PORT: await freePort(),
    FRONTEND_MEMBERSHIP_PORT: await freeMembershipPort(),
    HISTORY_GRPC_PORT: await freePort(),
    HISTORY_MEMBERSHIP_PORT: await freeMembershipPort(),
    MATCHING_GRPC_PORT: await freePort(),
    MATCHING_MEMBERSHIP_PORT: await freeMembershipPort(),
    WORKER_GRPC_PORT: await freePort(),
    WORKER_MEMBERSHIP_PORT: await freeMembershipPort(),
  };
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...persistenceEnv(databaseUrl, databases),
    ...Object.fromEntries(Object.entries(ports).map(([key, value]) => [key, String(value)])),
    BIND_ON_IP: '127.0.0.1',
    DYNAMIC_CONFIG_FILE_PATH: DYNAMIC_CONFIG_FILE,
    LOG_LEVEL: logLevel,
    ...(metricsPort ? { PROMETHEUS_ENDPOINT: `127.0.0.1:${metricsPort}` } : {}),
  };
  const args = ['--root', CONFIG.root, '--config', CONFIG.dir, '--env', CONFIG.env, '--allow-no-auth', 'start'];
  const address = `127.0.0.1:${port}`;
  mkdirSync(path.dirname(logFile), { recursive: true });

  let child;
  const launch = async () => {
    const out = openSync(logFile, 'a');
    child = spawn(server, args, { cwd: root, env, stdio: ['ignore', out, out], detached: true });
    let exited = null;
    child.once('exit', (code, signal) => (exited = code ?? signal));
    await waitUntil(async () => {
      if (exited !== null) throw new Error(`The Temporal server exited (${exited}); see ${logFile}`);
      return (await portInUse(port)) && healthy(cli, address);
    }, 'The Temporal server', startTimeoutMs);
  };
  const stopNow = (signal = 'SIGTERM') => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return Promise.resolve();
    if (signal === 'SIGTERM') return stopProcess(current);
    return new Promise((resolve) => {
      current.once('exit', () => resolve());
      process.kill(-current.pid, signal);
    });
  };
  // Whatever ends this process, the server goes too.
  process.once('exit', () => {
    try {
      if (child) process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  });

  await launch();
  prepareNamespace({ cli, address, namespace });
  const handle = {
    address,
    namespace,
    metricsUrl: metricsPort ? `http://127.0.0.1:${metricsPort}/metrics` : null,
    get pid() {
      return child.pid;
    },
    stop: () => stopNow('SIGTERM'),
    kill: () => stopNow('SIGKILL'),
    async restart({ signal = 'SIGTERM', downMs = 0 } = {}) {
      await stopNow(signal);
      if (downMs) await new Promise((r) => setTimeout(r, downMs));
      await launch();
    },
  };
  return handle;
}

/**
 * The standalone Temporal UI in front of `address`, configured as the temporalio/ui image is (its
 * module's config/docker.yaml, read from TEMPORAL_* variables). Returns { url, stop }.
 */
export async function startTemporalUi({ ui, address, port, namespace, logFile }) {
  mkdirSync(path.dirname(logFile), { recursive: true });
  const out = openSync(logFile, 'a');
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_UI_PORT: String(port),
    TEMPORAL_DEFAULT_NAMESPACE: namespace,
  };
  const child = spawnGroup(ui.binary, ['--root', ui.moduleDir, '--env', 'docker', 'start'], { env, stdio: ['ignore', out, out] });
  let exited = null;
  child.once('exit', (code) => (exited = code));
  await waitUntil(async () => {
    if (exited !== null) throw new Error(`The Temporal UI exited (${exited}); see ${logFile}`);
    return portInUse(port);
  }, 'The Temporal UI', 30_000);
  return { url: `http://localhost:${port}`, stop: () => stopProcess(child) };
}
