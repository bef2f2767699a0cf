// `npm run bench`: brings the stack up as `npm start` does (on ports and a data folder of its
// own), runs each scenario beside its floor, prints the table and writes bench/results.json.
// `npm run bench -- --quick` finishes in about a minute; docs/performance.md explains the rest.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync, readdirSync, openSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDependencies, onProjectNode, ensureTemporalCli, root, say } from './lib/prepare.mjs';

const HELP = `npm run bench [-- options]
  --quick                 short phases (about a minute in all)
  --seconds N             measured seconds of each load phase (BENCH_SECONDS, 15; quick 3)
  --connections N         connections for quotes and reads (BENCH_CONNECTIONS, 32)
  --booking-connections N concurrent bookings, and the floor's loops (BENCH_BOOKING_CONNECTIONS, 16)
  --track-connections N   pollers of the public tracking view (BENCH_TRACK_CONNECTIONS, 64)
  --track-deliveries N    deliveries on the road while they poll (BENCH_TRACK_DELIVERIES, 5)
  --deliveries N          end to end: deliveries in flight (BENCH_DELIVERIES, 50)
  --e2e-seconds N         end to end: how long slots keep booking (BENCH_E2E_SECONDS, 60; quick 10)
  --step-ms N             end to end: a rider's pause between actions (BENCH_STEP_MS, 1000)
  --accept-after-ms N     end to end: how long a rider takes to accept an offer once it shows
                          (BENCH_ACCEPT_AFTER_MS, 0: at the first poll that sees it)
  --samples N             lifecycle timings: deliveries one at a time (BENCH_SAMPLES, 50; quick 8)
  --only a,b              run only these: quotes, read, timings, tracking, e2e, booking, city, growth, ping
                          (city, growth and ping run only when named: city is the long one, growth
                          reseeds, ping seeds riders of its own)
  Ping: signed-in riders each sending a position on a beat, the API's CPU a ping beside a bare
  node:http server's answering 204 (docs/decisions/0176-lean-ping.md); each also BENCH_PING_…:
  --ping-riders N         riders pinging (2000)
  --ping-every-seconds N  each rider's beat (5)
  --ping-seconds N        measured seconds on each server, after one unmeasured beat (30; quick 10)
  --ping-sockets N        the load generator's connections to each server (256)
  City, open loop (docs/performance.md, "The city at its peak"); each also BENCH_CITY_…:
  --city-riders N         online riders, each sending its position every 5 s (5000)
  --city-in-flight N      deliveries in flight, each ridden to delivered (2000)
  --city-bookings N       bookings a second once in flight (2)
  --city-ramp N           bookings a second while filling the city up (10)
  --city-seconds N        measured seconds at the steady load (600)
  --city-quotes N         quotes a second beside them (2)
  --city-places N         place look-ups a second beside them (1)
  --city-sockets N        the load generator's connections to the API from each address (256)
  --city-addresses N      loopback addresses the riders' phones and recipients' pages send from,
                          each a client of its own to the API (4096; 1: all from 127.0.0.1)
  --city-steps a,b,c      capacity: measure a window at each of these rider counts in turn, on
                          one ramp, stopping after the first that misses a target (--city-riders)
  --city-settle-seconds N unmeasured seconds at each rider count before its window (20; quick 5)
  Growth (docs/performance.md, "Cost as the data grows"); each also BENCH_GROWTH_…:
  --growth-deliveries N   deliveries bench/seed-growth.ts adds between the two measurements (1000000)
  --growth-partners N     partners it adds (one per 1,000 deliveries)
  --growth-riders N       riders it adds (one per 50 deliveries)
  --growth-own N          the bench partner's own deliveries, made first, for a deep page of its list (2000)
  --growth-rate N         requests a second on each path, before and after (40)
  --growth-booking-rate N bookings a second, before and after (10)
  --growth-seconds N      measured seconds of each path, before and after (60; quick 5)
  --explain               print the plans of each path's statements (the results file has them always)
  --rate-limit-store S    postgres (the production default, and the bench's) or memory (development's)
                          (BENCH_RATE_LIMIT_STORE)
  --temporal T            dev (default: the CLI's dev server, SQLite) or server (the real Temporal
                          server on the bench's PostgreSQL, as \`npm run topology\` runs it) (BENCH_TEMPORAL)
  --temporal-db S         wal (default: the dev server's SQLite file in WAL mode, no fsync per commit),
                          file (the default journal, no WAL) or memory (BENCH_TEMPORAL_DB)
  --profile               run the API and worker with --cpu-prof; prints their hottest functions
  --api-semi-space MB     run the API with this --max-semi-space-size instead of the Dockerfile's
                          (BENCH_API_SEMI_SPACE), to weigh the young generation's size
  --live-heap             open the API's and worker's inspectors; at each of the city's memory
                          samples, collect garbage in full and read the live heap and external
                          memory (BENCH_LIVE_HEAP)
  --results FILE          where to write the results (BENCH_RESULTS, bench/results.json)
  BENCH_TEMPORAL_ARGS     more arguments for \`temporal server start-dev\`, space-separated, to try
                          dev server settings (say --dynamic-config-value key=value)`;

function parseOptions(argv) {
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) continue;
    const name = arg.slice(2);
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) flags[name] = true;
    else {
      flags[name] = next;
      i += 1;
    }
  }
  if (flags.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const quick = Boolean(flags.quick) || process.env.BENCH_QUICK === '1';
  const pick = (flag, env, full, short) => {
    const raw = flags[flag] ?? process.env[env];
    const value = raw === undefined ? (quick ? short : full) : Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${flag} (${env}) must be a number, got "${raw}"`);
    return value;
  };
  const semiSpace = flags['api-semi-space'] ?? process.env.BENCH_API_SEMI_SPACE;
  if (semiSpace !== undefined && !/^[1-9]\d*$/.test(String(semiSpace))) throw new Error(`--api-semi-space takes whole MB, got "${semiSpace}"`);
  const cityRiders = pick('city-riders', 'BENCH_CITY_RIDERS', 5000, 5000);
  const citySteps = String(flags['city-steps'] ?? process.env.BENCH_CITY_STEPS ?? cityRiders).split(',').map(Number);
  if (citySteps.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--city-steps takes whole rider counts, got "${citySteps}"`);
  return {
    quick,
    seconds: pick('seconds', 'BENCH_SECONDS', 15, 3),
    connections: pick('connections', 'BENCH_CONNECTIONS', 32, 32),
    bookingConnections: pick('booking-connections', 'BENCH_BOOKING_CONNECTIONS', 16, 16),
    trackConnections: pick('track-connections', 'BENCH_TRACK_CONNECTIONS', 64, 64),
    trackDeliveries: pick('track-deliveries', 'BENCH_TRACK_DELIVERIES', 5, 5),
    e2eDeliveries: pick('deliveries', 'BENCH_DELIVERIES', 50, 50),
    e2eSeconds: pick('e2e-seconds', 'BENCH_E2E_SECONDS', 60, 10),
    stepMs: pick('step-ms', 'BENCH_STEP_MS', 1000, 1000),
    acceptAfterMs: pick('accept-after-ms', 'BENCH_ACCEPT_AFTER_MS', 0, 0),
    timingSamples: pick('samples', 'BENCH_SAMPLES', 50, 8),
    only: String(flags.only ?? process.env.BENCH_ONLY ?? 'quotes,read,timings,tracking,e2e,booking').split(','),
    city: {
      riders: Math.max(cityRiders, ...citySteps),
      steps: citySteps,
      inFlight: pick('city-in-flight', 'BENCH_CITY_IN_FLIGHT', 2000, 2000),
      bookingsPerSecond: pick('city-bookings', 'BENCH_CITY_BOOKINGS', 2, 2),
      rampPerSecond: pick('city-ramp', 'BENCH_CITY_RAMP', 10, 10),
      seconds: pick('city-seconds', 'BENCH_CITY_SECONDS', 600, 60),
      quotesPerSecond: pick('city-quotes', 'BENCH_CITY_QUOTES', 2, 2),
      placesPerSecond: pick('city-places', 'BENCH_CITY_PLACES', 1, 1),
      sockets: pick('city-sockets', 'BENCH_CITY_SOCKETS', 256, 256),
      addresses: Math.max(1, Math.min(65_536, pick('city-addresses', 'BENCH_CITY_ADDRESSES', 4096, 4096))),
      // The rider app's own beats (web/rider/): a position every 5 s, offers every 4 s; a
      // recipient's tracking page every 10 s and a partner's poll every 30 s, as the issue sets them.
      pingSeconds: pick('city-ping-seconds', 'BENCH_CITY_PING_SECONDS', 5, 5),
      offerPollSeconds: pick('city-offer-poll-seconds', 'BENCH_CITY_OFFER_POLL_SECONDS', 4, 4),
      trackSeconds: pick('city-track-seconds', 'BENCH_CITY_TRACK_SECONDS', 10, 10),
      partnerPollSeconds: pick('city-partner-poll-seconds', 'BENCH_CITY_PARTNER_POLL_SECONDS', 30, 30),
      photoShare: 0.5,
      settleSeconds: pick('city-settle-seconds', 'BENCH_CITY_SETTLE_SECONDS', 20, 5),
    },
    ping: {
      riders: pick('ping-riders', 'BENCH_PING_RIDERS', 2000, 2000),
      everySeconds: pick('ping-every-seconds', 'BENCH_PING_EVERY_SECONDS', 5, 5),
      seconds: pick('ping-seconds', 'BENCH_PING_SECONDS', 30, 10),
      sockets: pick('ping-sockets', 'BENCH_PING_SOCKETS', 256, 256),
    },
    growth: (() => {
      const deliveries = pick('growth-deliveries', 'BENCH_GROWTH_DELIVERIES', 1_000_000, 1_000_000);
      // The issue's proportions, 1,000 partners and 20,000 riders to a million deliveries, at any size.
      const partners = Math.max(1, Math.round(deliveries / 1000));
      const riders = Math.max(20, Math.round(deliveries / 50));
      return {
        deliveries,
        partners: pick('growth-partners', 'BENCH_GROWTH_PARTNERS', partners, partners),
        riders: pick('growth-riders', 'BENCH_GROWTH_RIDERS', riders, riders),
        own: pick('growth-own', 'BENCH_GROWTH_OWN', 2000, 2000),
        rate: pick('growth-rate', 'BENCH_GROWTH_RATE', 40, 40),
        bookingRate: pick('growth-booking-rate', 'BENCH_GROWTH_BOOKING_RATE', 10, 10),
        seconds: pick('growth-seconds', 'BENCH_GROWTH_SECONDS', 60, 5),
      };
    })(),
    explain: Boolean(flags.explain) || process.env.BENCH_EXPLAIN === '1',
    rateLimitStore: String(flags['rate-limit-store'] ?? process.env.BENCH_RATE_LIMIT_STORE ?? 'postgres'),
    temporal: String(flags.temporal ?? process.env.BENCH_TEMPORAL ?? 'dev'),
    temporalDb: String(flags['temporal-db'] ?? process.env.BENCH_TEMPORAL_DB ?? 'wal'),
    profile: Boolean(flags.profile) || process.env.BENCH_PROFILE === '1',
    apiSemiSpaceMb: semiSpace === undefined ? null : Number(semiSpace),
    // The API's and worker's live heap after a full collection, at each of the city's memory samples.
    liveHeap: Boolean(flags['live-heap']) || process.env.BENCH_LIVE_HEAP === '1',
    resultsFile: path.resolve(String(flags.results ?? process.env.BENCH_RESULTS ?? path.join(root, 'bench', 'results.json'))),
  };
}

const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/** A child process whose output goes to a log file; `readyLine` waits for its first stdout line. */
function startChild(name, command, args, env, logDir, { readyLine = false } = {}) {
  mkdirSync(logDir, { recursive: true });
  const log = openSync(path.join(logDir, `${name}.log`), 'a');
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', readyLine ? 'pipe' : log, log],
    detached: true,
  });
  child.name = name;
  if (!readyLine) return { child, ready: Promise.resolve(null) };
  const ready = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve(out.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before it was ready; see ${path.join(logDir, `${name}.log`)}`)));
  });
  return { child, ready };
}

/** Runs a command to its end without blocking this process; rejects with its stderr on failure. */
function run(command, args, what) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${what} failed:\n${err}`))));
  });
}

/**
 * SIGTERM to the server itself (under tsx, the node process it runs), once: a second SIGTERM, as a
 * signal to the whole group would deliver through tsx's relay, kills it before it writes its
 * profile. SIGKILL to the group only after `graceMs`.
 */
function stopPatiently(child, graceMs, serverPid) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(serverPid(child.pid), 'SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
  });
}

async function waitUntilReady(url, child, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${child.name} exited (${child.exitCode}) during start-up`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not become ready in ${timeoutMs / 1000} s`);
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  ensureDependencies();
  await onProjectNode();
  const cli = ensureTemporalCli();
  const { startTemporal, migrate, freePort, stopProcess } = await import('./lib/stack.mjs');
  const { startEmbeddedPostgres } = await import('./lib/embedded-postgres.mjs');
  const { imageApiArgs } = await import('./lib/image-command.mjs');
  const { memoryOf, sampleMemory, serverPid } = await import('../bench/lib/memory.mjs');
  const { inspectFlags } = await import('../bench/lib/live-heap.mjs');
  const { accountCpu, postmasterOf, untilQuiet } = await import('../bench/lib/cpu.mjs');
  const { startWebhookReceiver } = await import('../bench/lib/webhook-receiver.mjs');
  const { book, bookingBody } = await import('../bench/lib/client.mjs');
  // The partner side books, polls and verifies callbacks with the published client (clients/typescript),
  // loaded from its TypeScript sources as the tests load it; the load phases' hot loops stay on autocannon.
  const { tsImport } = await import('tsx/esm/api');
  const { createPartnerClient, verifyWebhook } = await tsImport('../clients/typescript/src/index.ts', import.meta.url);
  const { riderApp } = await import('../bench/lib/rider-app.mjs');
  const { renderReport } = await import('../bench/lib/report.mjs');
  const { Client, Connection } = await import('@temporalio/client');
  const { default: pg } = await import('pg');

  const started = Date.now();
  const dataDir = path.join(root, '.data', 'bench', String(process.pid));
  const logDir = path.join(dataDir, 'logs');
  const profileDir = path.join(root, '.data', 'bench-profiles', new Date().toISOString().replace(/[:.]/g, '-'));
  // Two waves: first everything that uses Temporal and PostgreSQL, at once; then those two.
  const stops = [];
  const infrastructure = [];
  let succeeded = false;
  const cleanup = async () => {
    await Promise.all(stops.splice(0).map((stop) => Promise.resolve().then(stop).catch(() => undefined)));
    await Promise.all(infrastructure.splice(0).map((stop) => Promise.resolve().then(stop).catch(() => undefined)));
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  process.once('SIGTERM', () => void cleanup().then(() => process.exit(143)));

  try {
    const loadBefore = os.loadavg().map((v) => Number(v.toFixed(2)));
    const realServer = options.temporal === 'server';
    say(`Benchmark${options.quick ? ' (quick)' : ''}: starting ${realServer ? 'the Temporal server on PostgreSQL' : 'a Temporal dev server'}, PostgreSQL, the API and the worker…`);
    // Temporal, PostgreSQL and the workflow bundle come up side by side.
    const bundle = path.join(dataDir, 'workflow-bundle.js');
    const compiled = path.join(dataDir, 'dist');
    const pgDataDir = path.join(dataDir, 'postgres');
    const database = (async () => {
      // Its own database unless told otherwise: the bench adds partners and deliveries by the hundred.
      if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
      // With statement statistics, so a scenario can say where PostgreSQL's time went.
      const postgres = await startEmbeddedPostgres({
        dataDir: pgDataDir,
        port: await freePort(),
        fresh: true,
        settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' },
      });
      infrastructure.push(postgres.stop);
      migrate(postgres.url);
      return postgres.url;
    })();
    // The real server keeps its state in databases of its own on the bench's PostgreSQL, with the
    // compose stack's config files (scripts/lib/temporal-server.mjs); the bench uses the default namespace.
    const startRealServer = async () => {
      const { ensureTemporalServer, startTemporalServer } = await import('./lib/temporal-server.mjs');
      const binaries = ensureTemporalServer();
      return startTemporalServer({
        server: binaries.server,
        sqlTool: binaries.sql,
        cli,
        databaseUrl: await database,
        namespace: 'default',
        logFile: path.join(logDir, 'temporal.log'),
      });
    };
    // allSettled: when one part fails, the others still finish starting and get stopped.
    const parts = await Promise.allSettled([
      (realServer ? startRealServer() : startTemporal({
        cli,
        port: await freePort(),
        headless: true,
        // A SQLite file in WAL mode, as `npm start` keeps it, unless asked for the dev server's
        // own journal or the in-memory store of the tests.
        ...(options.temporalDb === 'memory' ? {} : { dbFile: path.join(dataDir, 'temporal.sqlite') }),
        wal: options.temporalDb === 'wal',
        extraArgs: process.env.BENCH_TEMPORAL_ARGS ? process.env.BENCH_TEMPORAL_ARGS.split(' ') : [],
        logFile: path.join(logDir, 'temporal.log'),
      })).then((started) => {
        infrastructure.push(started.stop);
        return started;
      }),
      database,
      // Workers load a prebuilt bundle in production (`npm run build`); so does the bench's.
      run(bin('tsx'), ['scripts/bundle-workflows.ts', bundle], 'Bundling the workflows'),
      // The API and worker run compiled, with the image's node flags, as production runs them.
      run(process.execPath, ['scripts/build.mjs', compiled], 'Compiling the source tree'),
    ]);
    const failed = parts.find((part) => part.status === 'rejected');
    if (failed) throw failed.reason;
    const [temporal, databaseUrl] = parts.map((part) => part.value);
    if (process.env.BENCH_DATABASE_URL) migrate(databaseUrl);

    const receiver = await startWebhookReceiver({ verifyWebhook });
    stops.push(() => receiver.close());
    const ridersNeeded = options.e2eDeliveries + options.trackDeliveries + 2;
    const seeded = spawnSync(bin('tsx'), ['bench/seed.ts', receiver.url, String(ridersNeeded)], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      encoding: 'utf8',
    });
    if (seeded.status !== 0) throw new Error(`Seeding failed:\n${seeded.stderr}`);
    const seed = JSON.parse(seeded.stdout.trim().split('\n').pop());
    receiver.setSecret(seed.webhookSecret);

    const apiPort = await freePort();
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const workerMetricsPort = await freePort();
    const floorTaskQueue = 'bench-floor';
    const stackEnv = {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      PORT: String(apiPort),
      SITE_URL: apiUrl,
      // Development, so callbacks may go to the loopback receiver; production refuses them.
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      WORKFLOW_BUNDLE: bundle,
      // The limits guard against abuse; the bench is one partner and one IP on purpose.
      RATE_LIMIT_PARTNER_PER_MINUTE: '1000000000',
      RATE_LIMIT_PARTNER_TEST_PER_MINUTE: '1000000000',
      RATE_LIMIT_PARTNER_IP_PER_MINUTE: '1000000000',
      RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000000',
      RATE_LIMIT_RIDER_PER_MINUTE: '1000000000',
      RATE_LIMIT_RIDER_IP_PER_MINUTE: '1000000000',
      RATE_LIMIT_PLACES_PER_MINUTE: '1000000000',
      RATE_LIMIT_STORE: options.rateLimitStore,
      // The worker's Prometheus endpoint: the timings read how long its tasks and local activities took.
      WORKER_METRICS_PORT: String(workerMetricsPort),
      // No proxy in front: each loopback address the city sends from is a client of its own, with
      // its own per-IP budgets, as phones on their own addresses are in production.
      TRUST_PROXY: 'false',
    };
    const profileFlags = (name) => (options.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : []);
    const inspectPorts = options.liveHeap ? { api: await freePort(), worker: await freePort() } : null;
    const debugFlags = (name) => [...profileFlags(name), ...(inspectPorts ? inspectFlags(inspectPorts[name]) : [])];
    const worker = startChild('worker', process.execPath, [...debugFlags('worker'), path.join(compiled, 'workers', 'main.js')], stackEnv, logDir);
    const apiArgs = imageApiArgs(compiled).map((arg) =>
      options.apiSemiSpaceMb !== null && arg.startsWith('--max-semi-space-size=') ? `--max-semi-space-size=${options.apiSemiSpaceMb}` : arg,
    );
    const api = startChild('api', process.execPath, [...debugFlags('api'), ...apiArgs], stackEnv, logDir);
    // A profiled process writes its profile as it exits, which takes a while on a busy machine.
    const stopServer = (child) => (options.profile ? stopPatiently(child, 60_000, serverPid) : stopProcess(child));
    stops.push(() => stopServer(worker.child));
    stops.push(() => stopServer(api.child));
    const floorEnv = { DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporal.address, BENCH_FLOOR_TASK_QUEUE: floorTaskQueue };
    const floorWorker = startChild('floor-worker', bin('tsx'), ['bench/baseline-worker.ts'], floorEnv, logDir, { readyLine: true });
    stops.push(() => stopProcess(floorWorker.child));
    const floorHttp = startChild('floor-http', process.execPath, [...profileFlags('floor-http'), 'bench/baseline-http.mjs'], floorEnv, logDir, {
      readyLine: true,
    });
    stops.push(() => stopServer(floorHttp.child));

    await waitUntilReady(`${apiUrl}/readyz`, api.child);
    const floorPorts = JSON.parse(await floorHttp.ready);
    const baselineUrl = `http://127.0.0.1:${floorPorts.port}`;
    const bareFloorUrl = `http://127.0.0.1:${floorPorts.barePort}`;
    await floorWorker.ready;
    const pids = { api: serverPid(api.child.pid), worker: serverPid(worker.child.pid) };
    const cpuRoots = {
      temporal: temporal.pid,
      // The folder may be a link to where the server's user keeps it (scripts/lib/stack.mjs).
      postgres: postmasterOf(existsSync(pgDataDir) ? realpathSync(pgDataDir) : pgDataDir),
      api: pids.api,
      worker: pids.worker,
      floorHttp: floorHttp.child.pid,
      floorWorker: serverPid(floorWorker.child.pid),
    };

    const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    stops.push(() => db.end());
    const temporalConnection = await Connection.connect({ address: temporal.address });
    stops.push(() => temporalConnection.close());
    const temporalClient = new Client({ connection: temporalConnection });

    const windows = [];
    let current = 'setup';
    const partner = createPartnerClient({ baseUrl: apiUrl, apiKey: seed.apiKey });
    const free = seed.riders.map((rider) => riderApp(apiUrl, rider));
    const ctx = {
      root,
      tsx: bin('tsx'),
      /** Loads one of the project's TypeScript modules, named from the project's root as `../dir/file.ts`. */
      tsImport: (file) => tsImport(file, import.meta.url),
      options,
      apiUrl,
      workerMetricsUrl: `http://127.0.0.1:${workerMetricsPort}/metrics`,
      baselineUrl,
      bareFloorUrl,
      floorEnv,
      seed,
      partner,
      receiver,
      db,
      databaseUrl,
      pids,
      inspectPorts,
      cpuRoots,
      temporal: temporalClient,
      takeRiders: (count) => {
        if (free.length < count) throw new Error(`need ${count} riders, ${free.length} are free`);
        return free.splice(0, count);
      },
      returnRiders: (riders) => free.push(...riders),
      cpu: () => accountCpu(cpuRoots),
      /**
       * Runs `fn` while sampling the API's and worker's memory; adds the peaks to its result.
       * Notes the span on the monotonic clock, so a CPU profile can be cut to it.
       */
      measured: async (fn, label = 'product') => {
        const sampler = sampleMemory(pids);
        const cpu = accountCpu(cpuRoots);
        const from = Number(process.hrtime.bigint() / 1000n);
        try {
          const result = await fn();
          const shares = cpu.stop();
          return { cpu: shares, ...result, memory: sampler.stop() };
        } finally {
          sampler.stop();
          windows.push({ scenario: current, label, window: [from, Number(process.hrtime.bigint() / 1000n)] });
        }
      },
    };

    // One delivery carried to `delivered`, so the reads return a full record: events and a rider.
    {
      const [rider] = ctx.takeRiders(1);
      const job = await book(partner, bookingBody());
      await rider.drive(job);
      ctx.deliveredId = job.id;
      ctx.returnRiders([rider]);
    }

    const { quotesScenario } = await import('../bench/scenarios/quotes.mjs');
    const { readScenario } = await import('../bench/scenarios/read.mjs');
    const { lifecycleTimingsScenario } = await import('../bench/scenarios/lifecycle-timings.mjs');
    const { trackingScenario } = await import('../bench/scenarios/tracking.mjs');
    const { endToEndScenario } = await import('../bench/scenarios/end-to-end.mjs');
    const { bookingScenario } = await import('../bench/scenarios/booking.mjs');
    const { cityScenario } = await import('../bench/scenarios/city.mjs');
    const { growthScenario } = await import('../bench/scenarios/growth.mjs');
    const { pingScenario } = await import('../bench/scenarios/ping.mjs');
    // Booking comes last: its pending deliveries stay behind and would load every later phase.
    const plan = [
      ['quotes', quotesScenario],
      ['read', readScenario],
      ['timings', lifecycleTimingsScenario],
      ['tracking', trackingScenario],
      ['e2e', endToEndScenario],
      ['city', cityScenario],
      ['ping', pingScenario],
      ['booking', bookingScenario],
      // Last of all: it leaves the database a million deliveries larger.
      ['growth', growthScenario],
    ].filter(([name]) => options.only.includes(name));

    const scenarios = [];
    for (const [name, scenario] of plan) {
      current = name;
      // Work the last phase left queued (webhooks, workflow tasks) is not done on this phase's time.
      const busyBeforeSeconds = await untilQuiet(ctx.cpu);
      say(`Running ${name}…`);
      scenarios.push({ id: name, busyBeforeSeconds, ...(await scenario(ctx)) });
    }

    // Tables read row by row during the run: a missing index shows here first.
    const { rows: scans } = await db.query(
      `select relname as table, seq_scan, seq_tup_read, idx_scan, n_live_tup as rows from pg_stat_user_tables
       where seq_tup_read > 1000 order by seq_tup_read desc`,
    );
    const results = {
      at: new Date().toISOString(),
      options,
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        memoryGb: Math.round(os.totalmem() / 1024 ** 3),
        node: process.version,
        loadBefore,
        loadAfter: os.loadavg().map((v) => Number(v.toFixed(2))),
      },
      peakMemory: { api: memoryOf(pids.api).peakMb, worker: memoryOf(pids.worker).peakMb },
      webhooks: receiver.counts,
      sequentialScans: scans.map((row) => ({ ...row, seq_scan: Number(row.seq_scan), seq_tup_read: Number(row.seq_tup_read), idx_scan: Number(row.idx_scan) })),
      scenarios,
      // Monotonic-clock spans of each measured phase, to cut CPU profiles to them.
      phases: windows,
      seconds: Math.round((Date.now() - started) / 1000),
    };
    mkdirSync(path.dirname(options.resultsFile), { recursive: true });
    writeFileSync(options.resultsFile, `${JSON.stringify(results, null, 2)}\n`);
    await cleanup();
    process.stdout.write(`\n${renderReport(results)}\n\n`);
    if (options.profile) {
      const { summariseProfile } = await import('../bench/lib/profile-summary.mjs');
      for (const name of ['api', 'worker', 'floor-http']) {
        const dir = path.join(profileDir, name);
        // A process killed at the end (it did not stop in time) leaves no profile.
        if (!existsSync(dir)) continue;
        // Thread 0 is the process's main thread; the worker runs workflows on threads of their own.
        const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile') && !/\.1\.\d+\.cpuprofile$/.test(f));
        for (const file of files) {
          for (const { scenario, label, window } of windows) {
            if ((name === 'floor-http') !== (label === 'floor')) continue;
            const summary = summariseProfile(path.join(dir, file), { top: 20, window });
            process.stdout.write(`${name} (${file}) during ${scenario} (${label}):\n${summary}\n\n`);
          }
        }
      }
      say(`CPU profiles in ${profileDir} (open them in Chrome DevTools, Performance tab).`);
    }
    const shown = options.resultsFile.startsWith(`${root}${path.sep}`) ? path.relative(root, options.resultsFile) : options.resultsFile;
    say(`Results in ${shown}; the run took ${results.seconds} s.`);
    succeeded = true;
    return 0;
  } finally {
    await cleanup();
    // A failed run keeps its folder: the logs of every process are in it.
    if (succeeded) rmSync(dataDir, { recursive: true, force: true });
    else say(`The logs are in ${logDir}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    say(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
