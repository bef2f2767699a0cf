// `npm start`: everything a new machine needs, then the whole stack in the foreground.
import { mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureDependencies, onProjectNode, ensureTemporalCli, root, say } from './lib/prepare.mjs';
import { pidAlive, processStamp, readStackFile, removeStackFile, stopLeftovers, writeStackFile } from './lib/stack-file.mjs';
import { waitUntil } from './lib/wait-until.mjs';

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
// STACK_DATA_DIR lets a second stack (say, the start-up smoke test) keep its files apart.
const dataDir = path.resolve(root, process.env.STACK_DATA_DIR ?? '.data');
const stackFile = path.join(dataDir, 'stack.json');

/** How long a start waits for a stack that is stopping (its processes get 8 s before SIGKILL). */
const STOPPING_WAIT_MS = 30_000;

/**
 * The stack this data folder already runs, or null when it runs none. A stack that is stopping is
 * waited for; one whose start was killed before it could stop what it started has those stopped.
 */
async function runningStack() {
  const stack = readStackFile(stackFile);
  if (!stack) return null;
  if (pidAlive(stack.pid) && stack.stopping) {
    say(`The stack (pid ${stack.pid}) is stopping; waiting for it…`);
    // Past the wait it is taken as running, and said so below.
    await waitUntil(() => !pidAlive(stack.pid), 'the end of the stopping stack', STOPPING_WAIT_MS, 100).catch(() => undefined);
  }
  if (pidAlive(stack.pid)) return stack;
  const stopped = await stopLeftovers(stack);
  if (stopped.length > 0) say(`The last stack (pid ${stack.pid}) ended without stopping what it started; stopped its ${stopped.join(', ')}.`);
  removeStackFile(stackFile);
  return null;
}

async function main() {
  mkdirSync(dataDir, { recursive: true });
  const running = await runningStack();
  if (running) {
    say(`The stack is already running (pid ${running.pid}): API ${running.apiUrl}, Temporal UI ${running.temporalUiUrl}.`);
    say('Stop it with Ctrl-C in its terminal first, or use it as it is.');
    process.exit(1);
  }
  ensureDependencies();
  await onProjectNode();
  const cli = ensureTemporalCli();
  const { startTemporal, migrate, portInUse } = await import('./lib/stack.mjs');
  const { startEmbeddedPostgres } = await import('./lib/embedded-postgres.mjs');
  const { startNodeProcess, stopAll } = await import('./lib/pids.mjs');

  const temporalPort = Number(process.env.TEMPORAL_PORT ?? 7233);
  const uiPort = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
  const apiPort = Number(process.env.PORT ?? 3000);
  const ports = [
    [temporalPort, 'Temporal', 'TEMPORAL_PORT'],
    [uiPort, 'the Temporal UI', 'TEMPORAL_UI_PORT'],
    ...(only ? [] : [[apiPort, 'the API', 'PORT']]),
  ];
  for (const [port, what, variable] of ports) {
    if (await portInUse(port)) {
      say(`Port ${port} (for ${what}) is already in use. Is another stack running? Free it or choose another with ${variable}=….`);
      process.exit(1);
    }
  }

  // What the stack file says: this start's pid, its addresses and each process it started.
  const stack = { pid: process.pid, processes: [] };
  const record = (fields) => writeStackFile(stackFile, Object.assign(stack, fields));
  const started = (name, pid, options) => record({ processes: [...stack.processes, processStamp(name, pid, options)] });
  record({});

  // Stopped in layers, each layer at once: the API and the worker, then what they used.
  const layers = [];
  let stopping = false;
  const shutdown = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    say('Stopping…');
    // A start made meanwhile waits for this one instead of calling the stack running.
    record({ stopping: true });
    for (const layer of layers.reverse()) await Promise.all(layer.map((stop) => stop().catch(() => undefined)));
    // Last: once the file is gone, nothing of this stack is left.
    removeStackFile(stackFile);
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  try {
    say('Starting the Temporal dev server…');
    const temporal = await startTemporal({
      cli,
      port: temporalPort,
      uiPort,
      dbFile: path.join(dataDir, 'temporal.sqlite'),
      logFile: path.join(dataDir, 'logs', 'temporal.log'),
    });
    const services = [temporal.stop];
    layers.push(services);
    started('Temporal dev server', temporal.pid);
    record({ temporalUiUrl: temporal.uiUrl, temporalAddress: temporal.address, apiUrl: `http://localhost:${apiPort}` });
    if (only === 'temporal') {
      say(`Temporal at ${temporal.address}, UI at ${temporal.uiUrl}. Ctrl-C stops it.`);
      return;
    }

    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      say('Starting the embedded PostgreSQL…');
      const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: Number(process.env.PG_PORT ?? 54329) });
      services.push(pg.stop);
      started('embedded PostgreSQL', pg.pid, { group: false, signal: 'SIGINT' });
      databaseUrl = pg.url;
    }
    migrate(databaseUrl);

    const env = {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      PORT: String(apiPort),
      NODE_ENV: process.env.NODE_ENV ?? 'development',
      // Mail files and uploads live with the rest of this stack's data, so a second stack's
      // confirmation links and photos never land in the default stack's folder.
      DATA_DIR: process.env.DATA_DIR ?? dataDir,
    };
    const seed = spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['scripts/seed-demo.ts'], {
      cwd: root,
      env: { ...process.env, ...env, SEED_DATABASE: process.env.DATABASE_URL ? 'named' : 'embedded' },
      encoding: 'utf8',
    });
    // 78: the seed refused the database (one that holds live keys), and says why in one line.
    if (seed.status === 78) throw new Error(seed.stderr.trim());
    if (seed.status !== 0) throw new Error(`Seeding the demo partner failed:\n${seed.stderr}`);
    const demo = JSON.parse(seed.stdout.trim().split('\n').pop());

    const worker = startNodeProcess('worker', 'workers/main.ts', env);
    const api = startNodeProcess('api', 'api/main.ts', env);
    layers.push([() => stopAll([worker, api])]);
    started('worker', worker.pid);
    started('API', api.pid);
    for (const child of [worker, api]) {
      child.once('exit', (code) => {
        if (!stopping) {
          say(`The ${child.name} process exited (${code}); stopping the stack.`);
          void shutdown(1);
        }
      });
    }
    record({ databaseUrl });
    const base = `http://localhost:${apiPort}`;
    for (let i = 0; i < 150; i++) {
      const ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
      if (ready) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const demoLines = demoLinesOf(demo, base);
    process.stdout.write(`
  Partner Delivery Service is running.

  API            ${base}/api/v1
  API docs       ${base}/docs
  Dashboard      ${base}/dashboard
  Temporal UI    ${temporal.uiUrl}
  Database       ${databaseUrl.replace(/:[^:@/]+@/, ':•••@')}

${demoLines}

  Ctrl-C stops everything.
`);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    await shutdown(1);
  }
}

/**
 * The demo partner's lines: its key, or why none was made (production seeds nothing; a database
 * holding live-mode keys gets nothing new) and how to make one.
 */
function demoLinesOf(demo, base) {
  if (demo.api_key) {
    return `  Demo partner   ${demo.email} (password: ${demo.password})
  Test API key   ${demo.api_key}

  Try:  curl -s ${base}/api/v1/partner/quotes -H "Authorization: Bearer ${demo.api_key}" \\
          -H "Content-Type: application/json" \\
          -d '{"pickup_lat":5.5497,"pickup_lng":-0.2096,"dropoff_lat":5.6052,"dropoff_lng":-0.1668}'`;
  }
  if (demo.partner_id) {
    return `  Demo partner   ${demo.email} (password: ${demo.password}): no new key, ${demo.skipped}.
  Make a test key on the dashboard, or: npm run ops -- key:create --partner ${demo.partner_id} --label mine --test`;
  }
  return `  No demo partner: ${demo.skipped}.
  Create one with: npm run ops -- partner:create --email E --business B`;
}

void main();
