// `npm test`: the same preparation as `npm start` (on ports of its own), then every test.
// Extra arguments go to jest: `npm test -- test/integration/lifecycle.test.ts`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureChromium, ensureDependencies, ensurePhp, ensurePython, onProjectNode, ensureTemporalCli, root, say } from './lib/prepare.mjs';

const started = Date.now();
const jestArgs = process.argv.slice(2);
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function run(what, command, args, env = {}) {
  say(what);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

/**
 * Runs a check beside the set-up (the type-check and the lint wait on nothing the stack starts):
 * its output is kept and printed when it ends, so two checks never interleave their lines.
 */
function runBeside(what, command, args) {
  say(`${what} (beside the set-up)`);
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.once('error', (error) => output.push(Buffer.from(String(error))));
    child.once('close', (code) => {
      if (output.length > 0) process.stdout.write(Buffer.concat(output));
      say(`${what}: ${code === 0 ? 'passed' : `failed (${code})`}`);
      resolve(code ?? 1);
    });
  });
}

async function main() {
  ensureDependencies();
  await onProjectNode();
  const cli = ensureTemporalCli();
  const chromium = ensureChromium();
  // The PHP and Python clients are tested against the running service with Debian's interpreters.
  const php = ensurePhp();
  const python = ensurePython();
  const { startTemporal, migrate, freePort } = await import('./lib/stack.mjs');
  const { startEmbeddedPostgres, copyDatabase } = await import('./lib/embedded-postgres.mjs');
  // Each run has its own folder, so two runs (say, two terminals) never share a database.
  const dataDir = path.join(root, '.data', 'test', String(process.pid));
  const stops = [];
  let cleaning;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    })());
  // Ctrl-C or a closed terminal: stop what this run started (the Temporal dev server runs in a
  // process group of its own, so the terminal's signal does not reach it) and remove its folder.
  for (const [signal, exitCode] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
    process.once(signal, () => void cleanUp().finally(() => process.exit(exitCode)));
  }
  let code = 1;
  try {
    // A full run type-checks and lints while the stack comes up; the tests wait for both.
    const checks =
      jestArgs.length === 0
        ? Promise.all([
            runBeside('Type-checking', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']),
            runBeside('Linting (ESLint and the workflow dependency rule)', 'npm', ['run', '--silent', 'lint']),
          ])
        : Promise.resolve([0]);
    say('Starting a Temporal dev server for the tests…');
    const temporal = await startTemporal({
      cli,
      port: await freePort(),
      headless: true,
      logFile: path.join(dataDir, 'temporal.log'),
    });
    stops.push(temporal.stop);

    let databaseUrl = process.env.DATABASE_URL;
    const embedded = !databaseUrl;
    if (embedded) {
      say('Starting an embedded PostgreSQL for the tests…');
      const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: await freePort(), fresh: true });
      stops.push(pg.stop);
      databaseUrl = pg.url;
    }
    migrate(databaseUrl);
    // Most suites spend their time waiting on timers, so two run at once (jest's default on two
    // cores is one). Each lane has a database of its own: riders are shared by every partner, and
    // one lane's dispatch would otherwise offer its jobs to the other lane's riders. A database
    // named by DATABASE_URL is not copied, so its suites run one at a time.
    const laneUrls = embedded ? [databaseUrl, await copyDatabase(databaseUrl, 'delivery_lane2')] : [databaseUrl];

    const bundle = path.join(dataDir, 'workflow-bundle.js');
    if (run('Bundling the workflows once for every test worker', bin('tsx'), ['scripts/bundle-workflows.ts', bundle]) !== 0) return 1;
    // The API as the image runs it, compiled (test/integration/photo-upload-memory.test.ts): into
    // this run's folder, so runs side by side never rewrite each other's files (a second or so).
    const compiled = path.join(dataDir, 'dist');
    if (run('Compiling the source tree to JavaScript', process.execPath, ['scripts/build.mjs', compiled]) !== 0) return 1;

    // The photo-store tests start their own S3-compatible server (test/helpers/seaweedfs.ts). A
    // SeaweedFS not built yet (a new machine: a few minutes of `go build`) is built while the
    // other suites run; those tests wait for it (TEST_SEAWEEDFS_STATUS).
    const { ensureSeaweedfs, seaweedfsPath } = await import('./lib/seaweedfs.mjs');
    const seaweedfs = seaweedfsPath();
    const seaweedfsStatus = path.join(dataDir, 'seaweedfs-build.status');
    if (existsSync(seaweedfs)) writeFileSync(seaweedfsStatus, 'ok\n');
    else if (jestArgs.length > 0) {
      ensureSeaweedfs();
      writeFileSync(seaweedfsStatus, 'ok\n');
    } else {
      say('Building SeaweedFS for the photo-store tests while the other tests run (once; log in the run folder)…');
      const log = openSync(path.join(dataDir, 'seaweedfs-build.log'), 'a');
      const build = spawn(process.execPath, [path.join(root, 'scripts/lib/build-seaweedfs.mjs'), seaweedfsStatus], { cwd: root, stdio: ['ignore', log, log] });
      stops.push(async () => {
        if (build.exitCode === null) build.kill('SIGTERM');
      });
    }

    const workersChosen = jestArgs.some((arg) => /^(--maxWorkers|-w|-i$|--runInBand$)/.test(arg));
    const workers = workersChosen ? [] : [`--maxWorkers=${laneUrls.length}`];

    // ── The topology suite (test/topology/, jest project `topology`) ─────────────────────────
    // It starts a production topology of its own on this run's PostgreSQL (the real Temporal
    // server, HAProxy, two API and two worker processes), too much to share two cores with the
    // other suites: a full run runs it alone after them, and `npm test -- test/topology` runs only
    // it. The server (built once with `go install`), HAProxy and nginx (apt) are prepared here, before
    // jest's clock starts.
    const topologyRun = jestArgs.length === 0 || jestArgs.some((arg) => arg.includes('topology'));
    if (topologyRun) {
      const { ensureHaproxy, ensureNginx } = await import('./lib/prepare.mjs');
      const { ensureTemporalServer } = await import('./lib/temporal-server.mjs');
      ensureHaproxy();
      // The balancer tests run the compose stack's nginx config as well (test/topology/balancer-retries).
      ensureNginx();
      // The config tests render temporal-docker/config/temporal-sql.yaml with this binary.
      process.env.TEST_TEMPORAL_SERVER = ensureTemporalServer().server;
    }
    const otherProjects = jestArgs.length === 0 ? ['--selectProjects', 'unit', 'stack'] : [];
    // ── end of the topology block (the suite itself runs below, after the others) ──────────────

    if ((await checks).some((checkCode) => checkCode !== 0)) return 1;

    const testEnv = {
      NODE_ENV: 'test',
      TEST_DATABASE_URL: databaseUrl,
      TEST_DATABASE_LANES: laneUrls.join(' '),
      TEST_TEMPORAL_ADDRESS: temporal.address,
      TEST_TEMPORAL_CLI: cli,
      WORKFLOW_BUNDLE: bundle,
      TEST_COMPILED_DIR: compiled,
      CHROMIUM_PATH: chromium,
      PHP_PATH: php,
      PYTHON_PATH: python,
      TEST_SEAWEEDFS: seaweedfs,
      TEST_SEAWEEDFS_STATUS: seaweedfsStatus,
      // Servers a test starts itself keep their files here, removed with the run.
      TEST_RUN_DIR: dataDir,
    };
    code = run('Running the tests', bin('jest'), ['--ci', '--forceExit', ...workers, ...otherProjects, ...jestArgs], testEnv);
    if (jestArgs.length === 0) {
      const topologyCode = run('Running the topology tests (test/topology) on their own', bin('jest'), ['--ci', '--forceExit', '--selectProjects', 'topology'], testEnv);
      code = code || topologyCode;
    }
    return code;
  } finally {
    await cleanUp();
    say(`npm test finished in ${Math.round((Date.now() - started) / 1000)} s`);
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    say(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
