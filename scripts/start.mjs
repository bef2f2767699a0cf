// `npm start`: everything a new machine needs, then the whole stack in the foreground.
import { existsSync, readFileSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureDependencies, onProjectNode, ensureTemporalCli, root, say } from './lib/prepare.mjs';

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
// STACK_DATA_DIR lets a second stack (say, the start-up smoke test) keep its files apart.
const dataDir = path.resolve(root, process.env.STACK_DATA_DIR ?? '.data');
const stackFile = path.join(dataDir, 'stack.json');

function alreadyRunning() {
  if (!existsSync(stackFile)) return null;
  try {
    const stack = JSON.parse(readFileSync(stackFile, 'utf8'));
    process.kill(stack.pid, 0);
    return stack;
  } catch {
    return null;
  }
}

async function main() {
  mkdirSync(dataDir, { recursive: true });
  const running = alreadyRunning();
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

  const stops = [];
  let stopping = false;
  const shutdown = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    say('Stopping…');
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(stackFile, { force: true });
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
    stops.push(temporal.stop);
    writeFileSync(stackFile, JSON.stringify({ pid: process.pid, temporalUiUrl: temporal.uiUrl, temporalAddress: temporal.address, apiUrl: `http://localhost:${apiPort}` }));
    if (only === 'temporal') {
      say(`Temporal at ${temporal.address}, UI at ${temporal.uiUrl}. Ctrl-C stops it.`);
      return;
    }

    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      say('Starting the embedded PostgreSQL…');
      const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: Number(process.env.PG_PORT ?? 54329) });
      stops.push(pg.stop);
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
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    // 78: the seed refused the database (one that holds live keys), and says why in one line.
    if (seed.status === 78) throw new Error(seed.stderr.trim());
    if (seed.status !== 0) throw new Error(`Seeding the demo partner failed:\n${seed.stderr}`);
    const demo = JSON.parse(seed.stdout.trim().split('\n').pop());

    const worker = startNodeProcess('worker', 'workers/main.ts', env);
    stops.push(() => stopAll([worker]));
    const api = startNodeProcess('api', 'api/main.ts', env);
    stops.push(() => stopAll([api]));
    for (const child of [worker, api]) {
      child.once('exit', (code) => {
        if (!stopping) {
          say(`The ${child.name} process exited (${code}); stopping the stack.`);
          void shutdown(1);
        }
      });
    }
    writeFileSync(
      stackFile,
      JSON.stringify({ pid: process.pid, temporalUiUrl: temporal.uiUrl, apiUrl: `http://localhost:${apiPort}`, databaseUrl }),
    );
    const base = `http://localhost:${apiPort}`;
    for (let i = 0; i < 150; i++) {
      const ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
      if (ready) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // In production nothing is seeded (scripts/seed-demo.ts), so there is no key to print.
    const demoLines = demo.api_key
      ? `  Demo partner   ${demo.email} (password: ${demo.password})
  Test API key   ${demo.api_key}

  Try:  curl -s ${base}/api/v1/partner/quotes -H "Authorization: Bearer ${demo.api_key}" \\
          -H "Content-Type: application/json" \\
          -d '{"pickup_lat":5.5497,"pickup_lng":-0.2096,"dropoff_lat":5.6052,"dropoff_lng":-0.1668}'`
      : `  No demo partner: ${demo.skipped}.
  Create one with: npm run ops -- partner:create --email E --business B`;
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

void main();
