// `npm run bench:startup [-- --runs N]`: how long the API and the worker take to start, and the
// memory each holds at rest, run by tsx (as `npm start` runs them) and compiled (as the image runs
// them). It brings up a Temporal dev server and PostgreSQL of its own; docs/performance.md has the
// figures.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmbeddedPostgres } from '../scripts/lib/embedded-postgres.mjs';
import { ensureTemporalCli, root, say } from '../scripts/lib/prepare.mjs';
import { freePort, migrate, startTemporal } from '../scripts/lib/stack.mjs';
import { memoryOf } from './lib/memory.mjs';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5;
/** How long a process idles after it is ready before its resident memory is read. */
const REST_MS = 5_000;
const READY_WITHIN_MS = 120_000;
/** /proc/<pid>/stat counts CPU time in clock ticks, 100 a second on Linux. */
const TICKS_PER_SECOND = 100;

/**
 * How each process is run. tsx keeps what it compiled in a cache under the system's temp folder:
 * warm on a developer's machine, cold in every new container, where /tmp starts empty.
 */
const variants = (dist) => ({
  'tsx, cold cache': { env: { TSX_DISABLE_CACHE: '1' }, api: ['--import', 'tsx', 'api/main.ts'], worker: ['--import', 'tsx', 'workers/main.ts'] },
  'tsx, warm cache': { env: {}, api: ['--import', 'tsx', 'api/main.ts'], worker: ['--import', 'tsx', 'workers/main.ts'] },
  compiled: { env: {}, api: [path.join(dist, 'api/main.js')], worker: [path.join(dist, 'workers/main.js')] },
});

/** Ready means: the API answers /healthz; the worker has logged that it polls its task queues. */
const readiness = {
  api: (env) => () => fetch(`http://127.0.0.1:${env.PORT}/healthz`).then((r) => r.ok, () => false),
  worker: () => (output) => output.includes('Worker started'),
};

/**
 * CPU milliseconds a process has spent (user and system, every thread): unlike the wall time, it
 * hardly moves with whatever else keeps the machine's cores busy.
 */
function cpuMsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/**
 * Starts one process; returns the milliseconds from spawn to ready, the CPU it spent getting
 * there, and its VmRSS in MB after REST_MS at rest.
 */
async function measure(args, env, ready) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => (output = (output + chunk).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let failed = null;
  const exited = new Promise((resolve) => {
    child.once('exit', resolve);
    child.once('error', (error) => resolve((failed = error)));
  });
  try {
    while (!(await ready(output))) {
      if (failed) throw failed;
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited (${child.exitCode}):\n${output}`);
      if (performance.now() - started > READY_WITHIN_MS) throw new Error(`${args.join(' ')} was not ready within ${READY_WITHIN_MS / 1000} s`);
      await sleep(20);
    }
    const startMs = performance.now() - started;
    const cpuMs = cpuMsOf(child.pid);
    await sleep(REST_MS);
    return { startMs, cpuMs, rssMb: memoryOf(child.pid).rssMb };
  } finally {
    child.kill('SIGTERM');
    const killLater = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(killLater);
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function main() {
  const cli = ensureTemporalCli();
  const dataDir = path.join(root, '.data', 'startup-bench', String(process.pid));
  const stops = [];
  try {
    say('Starting a Temporal dev server and PostgreSQL; compiling and bundling…');
    const temporal = await startTemporal({ cli, port: await freePort(), headless: true, logFile: path.join(dataDir, 'temporal.log') });
    stops.push(temporal.stop);
    const postgres = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: await freePort(), fresh: true });
    stops.push(postgres.stop);
    migrate(postgres.url);
    const bundle = path.join(dataDir, 'workflow-bundle.js');
    const dist = path.join(dataDir, 'dist');
    for (const args of [[path.join(root, 'node_modules/.bin/tsx'), 'scripts/bundle-workflows.ts', bundle], [process.execPath, 'scripts/build.mjs', dist]]) {
      const built = spawnSync(args[0], args.slice(1), { cwd: root, encoding: 'utf8' });
      if (built.status !== 0) throw new Error(`${args.join(' ')} failed:\n${built.stderr}`);
    }

    const port = await freePort();
    // As the image runs: production mode with a prebuilt workflow bundle; the stand-ins opted in.
    const env = {
      NODE_ENV: 'production',
      ALLOW_SANDBOX_IN_PRODUCTION: 'true',
      SITE_URL: `http://127.0.0.1:${port}`,
      METRICS_TOKEN: 'startup-bench-metrics-token-0123456789',
      PHOTO_STORE: 'local',
      LOG_LEVEL: 'info',
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: postgres.url,
      TEMPORAL_ADDRESS: temporal.address,
      WORKFLOW_BUNDLE: bundle,
    };
    const results = [];
    // Round 0 warms the disk cache and tsx's cache, and is not counted. Rounds interleave the
    // variants, so a busy moment on the machine falls on all of them alike.
    for (let round = 0; round <= RUNS; round++) {
      for (const [variant, how] of Object.entries(variants(dist))) {
        for (const processName of ['api', 'worker']) {
          const runEnv = { ...env, ...how.env };
          const measured = await measure(how[processName], runEnv, readiness[processName](runEnv));
          if (round > 0) results.push({ variant, process: processName, ...measured });
        }
      }
      say(`round ${round}${round === 0 ? ' (warm-up)' : ''} done`);
    }

    const rows = [];
    for (const processName of ['api', 'worker']) {
      for (const variant of Object.keys(variants(dist))) {
        const mine = results.filter((r) => r.variant === variant && r.process === processName);
        const times = mine.map((r) => r.startMs);
        const spread = `${Math.round(Math.min(...times))}–${Math.round(Math.max(...times))}`;
        const middle = (field) => Math.round(median(mine.map((r) => r[field])));
        rows.push(`| ${processName} | ${variant} | ${middle('startMs')} (${spread}) | ${middle('cpuMs')} | ${middle('rssMb')} |`);
      }
    }
    process.stdout.write(
      [
        `${RUNS} runs each, medians (range); ${os.cpus().length} cores, load ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}; node ${process.version}`,
        '',
        `| process | run by | start-up to ready, ms | CPU to ready, ms | VmRSS at rest, MB |`,
        '|---|---|---|---|---|',
        ...rows,
        '',
        `Ready: the API answers /healthz; the worker has logged "Worker started" (it polls next). At rest: ${REST_MS / 1000} s after ready.`,
        '',
      ].join('\n'),
    );
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    say(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
