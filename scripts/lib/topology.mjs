// The service as it runs in production, on one machine: PostgreSQL, the real Temporal server on
// it (temporal-server.mjs), several worker processes, several API processes, and HAProxy in front
// of the APIs on one port, routing by /readyz. Used by `npm run topology` (scripts/topology.mjs)
// and by the topology tests (test/topology/), which kill its processes under load.
import { spawnSync } from 'node:child_process';
import { spawnGroup } from './process-group.mjs';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureHaproxy, ensureTemporalCli, root, say } from './prepare.mjs';
import { freePort, migrate, portInUse, stopProcess } from './stack.mjs';
import { startEmbeddedPostgres } from './embedded-postgres.mjs';
import { checkDatabaseUrl } from './database-url.mjs';
import { imageApiArgs } from './image-command.mjs';
import { startNodeProcess } from './pids.mjs';
import { DEFAULT_DATABASES, ensureTemporalServer, ensureTemporalUi, startTemporalServer, startTemporalUi } from './temporal-server.mjs';

/** The suffix of each API process's unchecked backup entry in HAProxy (see haproxyConfig). */
const FALLBACK = '-fallback';

/**
 * HAProxy's configuration: one frontend on `port`, round robin over the API processes, each
 * checked every second on /readyz (out after 2 failures, back after 2 successes), and all of
 * them at once when every check fails together. A request that cannot connect to one API process
 * is sent to another (`option redispatch`). One whose process died under it (no answer, or a
 * broken one) is sent again to another only if sending it twice is harmless: a method HTTP defines
 * as idempotent (a read, a PUT that sets, a DELETE), or a request with an `Idempotency-Key`, which
 * the API answers once whatever the repeats. nginx in the compose stack does the same.
 */
export function haproxyConfig({ port, statsPort, apis }) {
  return `# Written by scripts/lib/topology.mjs; regenerated at every start.
global
  maxconn 4096

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  # Every retry goes to another API process, not the one that just failed.
  option redispatch 1
  retries 2
  # A process killed mid-request answers nothing, or half an answer: try the request elsewhere.
  retry-on conn-failure empty-response junk-response response-timeout

frontend api
  bind 127.0.0.1:${port}
  # Replaces whatever X-Forwarded-For a client sent with the address HAProxy sees, as the compose
  # stack's nginx does, so the APIs (TRUST_PROXY=1) count per-IP limits on the real client.
  http-request set-header X-Forwarded-For %[src]
  # Only what is safe to send twice is retried once it reached a process (above, retry-on): the
  # methods HTTP defines as idempotent, which nginx also repeats, and requests with a key.
  acl safe_to_repeat method GET HEAD OPTIONS PUT DELETE
  acl keyed req.hdr(idempotency-key) -m found
  http-request disable-l7-retry unless safe_to_repeat or keyed
  default_backend apis

backend apis
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 1s fall 2 rise 2
${apis.map((api) => `  server ${api.name} 127.0.0.1:${api.port} check`).join('\n')}
  # /readyz fails on every API process at once when what they share is down (Temporal restarting,
  # PostgreSQL unreachable). Then the cause is not the processes: fail open to all of them, so
  # reads from PostgreSQL still answer and the API itself answers 503 \`unavailable\` (with
  # Retry-After) to what needs Temporal, instead of HAProxy refusing everything.
  option allbackups
${apis.map((api) => `  server ${api.name}${FALLBACK} 127.0.0.1:${api.port} backup`).join('\n')}

listen stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /
  stats refresh 2s
`;
}

/**
 * One of our Node processes (an API or a worker) that can be killed and started again on the same
 * port and settings. `restartAfterMs` (a number) brings it back after an unexpected exit, as a
 * supervisor (`restart: unless-stopped`) would.
 */
function managed({ name, script, env, logFile, restartAfterMs }) {
  let stopping = false;
  const proc = {
    name,
    env,
    child: null,
    starts: 0,
    exits: [],
    start() {
      proc.child = startNodeProcess(name, script, env, logFile);
      proc.starts += 1;
      const child = proc.child;
      child.once('exit', (code, signal) => {
        proc.exits.push({ code, signal, at: Date.now() });
        if (!stopping && restartAfterMs !== undefined && proc.child === child) {
          setTimeout(() => !stopping && proc.start(), restartAfterMs).unref();
        }
      });
      return proc;
    },
    get pid() {
      return proc.child?.pid;
    },
    get running() {
      return proc.child !== null && proc.child.exitCode === null && proc.child.signalCode === null;
    },
    /** Kills the process group with `signal` and waits for the exit. */
    kill(signal = 'SIGKILL') {
      const child = proc.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        child.once('exit', () => resolve());
        process.kill(-child.pid, signal);
      });
    },
    async stop() {
      stopping = true;
      if (proc.child) await stopProcess(proc.child);
    },
  };
  return proc;
}

async function waitForReady(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} was not ready within ${timeoutMs / 1000} s`);
}

/**
 * Starts the whole topology and returns its parts and one `stop()`. Options:
 * - `dataDir`: logs, the HAProxy config, the workflow bundle and (embedded) PostgreSQL's data;
 * - `databaseUrl`: a PostgreSQL to use (its server gets the Temporal databases too); unset, an
 *   embedded one on `pgPort`;
 * - `appDatabase`, `temporalDatabases`: database names on that server, so a test can keep apart;
 * - `port` (the balancer), `temporalPort`, `uiPort`: fixed ports, else free ones;
 * - `apis`, `workers`: how many of each (2);
 * - `env`: settings for every API and worker (timings, NODE_ENV…);
 * - `workflowBundle`: a prebuilt bundle, else one is built into `dataDir`;
 * - `compiledDir`: the source tree compiled by scripts/build.mjs, else it is compiled into `dataDir`;
 * - `ui`: `true` builds and runs the standalone Temporal UI, `'if-built'` runs it if it is there;
 * - `restartCrashed`: restart an API or worker that exits unexpectedly after this many ms.
 */
export async function startTopology({
  dataDir,
  databaseUrl,
  pgPort,
  freshDatabase = false,
  appDatabase,
  temporalDatabases = DEFAULT_DATABASES,
  port,
  temporalPort,
  uiPort,
  apis: apiCount = 2,
  workers: workerCount = 2,
  env: extraEnv = {},
  workflowBundle,
  compiledDir,
  namespace = 'deliveries',
  ui = false,
  restartCrashed,
  log = say,
}) {
  mkdirSync(dataDir, { recursive: true });
  const logDir = path.join(dataDir, 'logs');
  const stops = [];
  const stop = async () => {
    for (const fn of stops.splice(0).reverse()) await fn().catch(() => undefined);
  };
  try {
    // Before the builds, which take minutes the first time: a URL that cannot work is told at once.
    if (databaseUrl) {
      await checkDatabaseUrl(databaseUrl, { databases: [...Object.values(temporalDatabases), ...(appDatabase ? [appDatabase] : [])] });
    }
    const cli = ensureTemporalCli();
    const haproxy = ensureHaproxy();
    const binaries = ensureTemporalServer();

    if (!databaseUrl) {
      log('Starting the embedded PostgreSQL…');
      const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: pgPort ?? (await freePort()), fresh: freshDatabase });
      stops.push(pg.stop);
      databaseUrl = pg.url;
    }
    if (appDatabase) databaseUrl = await ensureDatabase(databaseUrl, appDatabase);

    log('Starting the Temporal server on PostgreSQL…');
    const temporal = await startTemporalServer({
      server: binaries.server,
      sqlTool: binaries.sql,
      cli,
      databaseUrl,
      databases: temporalDatabases,
      port: temporalPort,
      namespace,
      metricsPort: await freePort(),
      logFile: path.join(logDir, 'temporal-server.log'),
    });
    stops.push(temporal.stop);

    let uiUrl = null;
    const uiBuild = ui === true ? ensureTemporalUi() : ui === 'if-built' ? ensureTemporalUi({ build: false }) : null;
    if (uiBuild) {
      const started = await startTemporalUi({
        ui: uiBuild,
        address: temporal.address,
        port: uiPort ?? (await freePort()),
        namespace,
        logFile: path.join(logDir, 'temporal-ui.log'),
      });
      stops.push(started.stop);
      uiUrl = started.url;
    }

    migrate(databaseUrl);
    // The APIs and workers run compiled JavaScript, as the image does (npm run build's first half).
    if (!compiledDir) {
      compiledDir = path.join(dataDir, 'dist');
      log('Compiling the source tree to JavaScript…');
      const built = spawnSync(process.execPath, ['scripts/build.mjs', compiledDir], { cwd: root, encoding: 'utf8' });
      if (built.status !== 0) throw new Error(`Compiling failed:\n${built.stderr}`);
    }
    if (!workflowBundle) {
      workflowBundle = path.join(dataDir, 'workflow-bundle.js');
      log('Bundling the workflows once for every worker…');
      const bundled = spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['scripts/bundle-workflows.ts', workflowBundle], {
        cwd: root,
        encoding: 'utf8',
      });
      if (bundled.status !== 0) throw new Error(`Bundling the workflows failed:\n${bundled.stderr}`);
    }

    const shared = {
      NODE_ENV: 'development',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: namespace,
      WORKFLOW_BUNDLE: workflowBundle,
      DATA_DIR: dataDir,
      // Several API processes: one rate-limit budget for all of them, kept in Postgres.
      RATE_LIMIT_STORE: 'postgres',
      ...extraEnv,
    };
    const workers = [];
    for (let i = 1; i <= workerCount; i++) {
      const metricsPort = await freePort();
      workers.push(
        managed({
          name: `worker-${i}`,
          script: [path.join(compiledDir, 'workers', 'main.js')],
          env: { ...shared, WORKER_METRICS_PORT: String(metricsPort) },
          logFile: path.join(logDir, `worker-${i}.log`),
          restartAfterMs: restartCrashed,
        }),
      );
      workers.at(-1).metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    }
    const apis = [];
    for (let i = 1; i <= apiCount; i++) {
      const apiPort = await freePort();
      apis.push(
        managed({
          name: `api-${i}`,
          // With the image's node flags (its Dockerfile CMD).
          script: imageApiArgs(compiledDir),
          // HAProxy is the one hop in front, and it overwrites X-Forwarded-For.
          env: { ...shared, PORT: String(apiPort), TRUST_PROXY: '1' },
          logFile: path.join(logDir, `api-${i}.log`),
          restartAfterMs: restartCrashed,
        }),
      );
      apis.at(-1).port = apiPort;
      apis.at(-1).url = `http://127.0.0.1:${apiPort}`;
    }
    log(`Starting ${workerCount} workers and ${apiCount} API processes…`);
    for (const proc of [...workers, ...apis]) {
      proc.start();
      stops.push(() => proc.stop());
    }
    await Promise.all(apis.map((api) => waitForReady(`${api.url}/readyz`, 90_000)));

    port ??= await freePort();
    if (await portInUse(port)) throw new Error(`Port ${port} (for the load balancer) is already in use.`);
    const statsPort = await freePort();
    const configFile = path.join(dataDir, 'haproxy.cfg');
    writeFileSync(configFile, haproxyConfig({ port, statsPort, apis }));
    const check = spawnSync(haproxy, ['-c', '-q', '-f', configFile], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`HAProxy refused ${configFile}:\n${check.stderr}`);
    mkdirSync(logDir, { recursive: true });
    const out = openSync(path.join(logDir, 'haproxy.log'), 'a');
    // -db: in the foreground, so it stops with us.
    const balancer = spawnGroup(haproxy, ['-db', '-f', configFile], { stdio: ['ignore', out, out] }, 'SIGKILL');
    stops.push(() => stopProcess(balancer));
    const baseUrl = `http://127.0.0.1:${port}`;
    const statsUrl = `http://127.0.0.1:${statsPort}/`;
    // Ready when HAProxy's own checks have every API process UP, not merely the first.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const status = await backendStatus(statsUrl).catch(() => ({}));
      if (apis.every((api) => status[api.name] === 'UP')) break;
      if (Date.now() > deadline) throw new Error(`HAProxy did not see every API process UP within 30 s: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 250));
    }

    return {
      baseUrl,
      port,
      statsUrl,
      databaseUrl,
      temporal,
      uiUrl,
      apis,
      workers,
      haproxy: balancer,
      logDir,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * What HAProxy's checks say of each API process (`UP`, `DOWN`, `UP 1/2`…), from its stats page.
 * @returns {Promise<Record<string, string>>}
 */
export async function backendStatus(statsUrl) {
  const csv = await fetch(`${statsUrl};csv`).then((r) => r.text());
  const status = {};
  for (const line of csv.split('\n')) {
    const [proxy, server, ...fields] = line.split(',');
    // The 18th column is `status`; `proxy,server` come first.
    if (proxy === 'apis' && server !== 'BACKEND' && !server.endsWith(FALLBACK)) status[server] = fields[15];
  }
  return status;
}

/** `name` on the server of `url` (created when missing); returns its URL. */
async function ensureDatabase(url, name) {
  const { default: pg } = await import('pg');
  const at = new URL(url);
  at.pathname = '/postgres';
  const client = new pg.Client({ connectionString: at.toString() });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  at.pathname = `/${name}`;
  return at.toString();
}
