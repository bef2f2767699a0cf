// POST /rider/location: signed-in riders each sending their position on a fixed beat, as the
// rider app does, first to a bare `node:http` server answering 204 (the floor), then to the API.
// Reports each server process's own CPU a ping, measured in the same run under the same load.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ACCRA_BOUNDS, sleep } from '../lib/client.mjs';
import { accountCpu } from '../lib/cpu.mjs';
import { jsonLineOf } from '../lib/json-line.mjs';
import { EndpointStats, httpClient, onSchedule, timed } from '../lib/open-loop.mjs';
import { round } from '../lib/stats.mjs';

const ENDPOINT = 'POST /rider/location';

/** The floor server, in a process of its own; resolves once it listens. */
function startFloor(root) {
  const child = spawn(process.execPath, [path.join(root, 'bench', 'baseline-ping.mjs')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const listening = new Promise((resolve, reject) => {
    child.stdout.once('data', (line) => resolve(JSON.parse(String(line)).port));
    child.once('exit', (code) => reject(new Error(`the ping floor exited (${code}) before it listened`)));
  });
  const stopped = new Promise((resolve) => child.once('exit', resolve));
  return { pid: child.pid, listening, stop: () => (child.kill('SIGTERM'), stopped) };
}

/**
 * Every rider pings `url` once a beat, each from its own random start; the first beat (and a
 * second) is not measured: each token is looked up once, and the code is warm. `cpuOf` names the
 * processes whose CPU is counted over the measured seconds.
 */
async function pingPhase(url, riders, cpuOf, o) {
  const client = httpClient(url, { maxSockets: o.sockets });
  const stats = new EndpointStats();
  let stopping = false;
  const pending = new Set();
  const cancels = riders.map((rider) =>
    onSchedule(
      o.everyMs,
      Math.random() * o.everyMs,
      (dueAt) => {
        // A few metres from where the rider was seeded: a rider waiting at a corner.
        const body = { lat: rider.lat + (Math.random() - 0.5) / 10_000, lng: rider.lng + (Math.random() - 0.5) / 10_000 };
        const sent = timed(stats, ENDPOINT, dueAt, () => client.request('POST', '/rider/location', { token: rider.riderToken, body }), [204]);
        pending.add(sent);
        void sent.finally(() => pending.delete(sent));
      },
      () => stopping,
    ),
  );
  await sleep(o.everyMs + 1000);
  const cpu = accountCpu(cpuOf);
  stats.start();
  await sleep(o.seconds * 1000);
  stats.stop();
  const shares = cpu.stop();
  stopping = true;
  for (const cancel of cancels) cancel();
  await Promise.all(pending);
  client.close();
  const seen = stats.summary()[ENDPOINT] ?? { count: 0, rps: 0, p50: null, p99: null, errors: 0, statuses: {} };
  const measuredSeconds = (stats.to - stats.from) / 1000;
  /** CPU milliseconds of one process a ping. */
  const msPerPing = (name) => (seen.count ? (shares[name] * measuredSeconds * 1000) / seen.count : null);
  return { seen, shares, msPerPing, sendLag: stats.sendLag() };
}

export async function pingScenario(ctx) {
  const o = { ...ctx.options.ping, everyMs: ctx.options.ping.everySeconds * 1000 };
  const { south, north, west, east } = ACCRA_BOUNDS;
  const { riders } = await jsonLineOf(
    ctx.tsx,
    ['bench/seed-city-riders.ts', String(o.riders), ...[south, north, west, east].map(String), 'Ping Rider'],
    { cwd: ctx.root, env: { DATABASE_URL: ctx.databaseUrl } },
    'Seeding the pinging riders',
  );
  const floor = startFloor(ctx.root);
  try {
    const floorUrl = `http://127.0.0.1:${await floor.listening}`;
    const floorRun = await ctx.measured(() => pingPhase(floorUrl, riders, { floor: floor.pid }, o), 'floor');
    const apiRun = await ctx.measured(() => pingPhase(ctx.apiUrl, riders, { api: ctx.pids.api, postgres: ctx.cpuRoots.postgres }, o));
    const api = apiRun.msPerPing('api');
    const floorMs = floorRun.msPerPing('floor');
    const ratio = api !== null && floorMs ? api / floorMs : null;
    const asLoad = (run, cpuMs) => ({
      rps: run.seen.rps,
      p50: run.seen.p50,
      p99: run.seen.p99,
      errors: run.seen.errors,
      requests: run.seen.count,
      statusCodes: run.seen.statuses,
      cpu: run.shares,
      cpuMsPerRequest: cpuMs,
    });
    return {
      name: ENDPOINT,
      baselineName: 'bare node:http, 204',
      connections: o.sockets,
      baseline: asLoad(floorRun, floorMs),
      ...asLoad(apiRun, api),
      // The whole stack's, as every scenario reports it.
      cpu: apiRun.cpu,
      memory: apiRun.memory,
      notes:
        `${o.riders} riders, one ping each every ${o.everySeconds} s for ${o.seconds} s; CPU ms/req is each server process's own: ` +
        `API ${round(api, 3)} ms a ping, bare node:http ${round(floorMs, 3)} ms, ${round(ratio, 2)}× ` +
        `(PostgreSQL ${round(apiRun.msPerPing('postgres'), 3)} ms a ping beside the API)`,
      extra: {
        riders: o.riders,
        everySeconds: o.everySeconds,
        apiCpuMsPerPing: api,
        floorCpuMsPerPing: floorMs,
        ratio,
        postgresCpuMsPerPing: apiRun.msPerPing('postgres'),
        sendLag: { api: apiRun.sendLag, floor: floorRun.sendLag },
      },
    };
  } finally {
    await floor.stop();
    // Off the map again: later scenarios dispatch to riders of their own.
    await ctx.db.query('update riders set online = false where id = any($1)', [riders.map((r) => r.riderId)]);
  }
}
