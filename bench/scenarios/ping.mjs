// POST /rider/location: signed-in riders each sending their position on a fixed beat, as the
// rider app does, to the API and, the same ping at the same moment, to a bare `node:http` server
// answering 204 (the floor's listener in bench/baseline-http.mjs, whose other floors are idle
// meanwhile). Reports each server process's own CPU a ping over the same seconds.
import { ACCRA_BOUNDS, sleep } from '../lib/client.mjs';
import { accountCpu } from '../lib/cpu.mjs';
import { jsonLineOf } from '../lib/json-line.mjs';
import { EndpointStats, httpClient, onSchedule, timed } from '../lib/open-loop.mjs';
import { round } from '../lib/stats.mjs';

const ENDPOINT = 'POST /rider/location';

/**
 * Every rider pings each of `urls` once a beat, from its own random start, the same ping to each
 * at the same moment: the servers work under the same load and the same machine at once. The
 * first beat (and a second) is not measured: each token is looked up once, the code is warm.
 * `cpuOf` names the processes whose CPU is counted over the measured seconds.
 */
async function pingPhase(urls, riders, cpuOf, o) {
  const targets = Object.entries(urls).map(([name, url]) => ({ name, client: httpClient(url, { maxSockets: o.sockets }), stats: new EndpointStats() }));
  let stopping = false;
  const pending = new Set();
  const cancels = riders.map((rider) =>
    onSchedule(
      o.everyMs,
      Math.random() * o.everyMs,
      (dueAt) => {
        // A few metres from where the rider was seeded: a rider waiting at a corner.
        const body = { lat: rider.lat + (Math.random() - 0.5) / 10_000, lng: rider.lng + (Math.random() - 0.5) / 10_000 };
        for (const { client, stats } of targets) {
          const sent = timed(stats, ENDPOINT, dueAt, () => client.request('POST', '/rider/location', { token: rider.riderToken, body }), [204]);
          pending.add(sent);
          void sent.finally(() => pending.delete(sent));
        }
      },
      () => stopping,
    ),
  );
  await sleep(o.everyMs + 1000);
  const cpu = accountCpu(cpuOf);
  for (const { stats } of targets) stats.start();
  const from = performance.now();
  await sleep(o.seconds * 1000);
  for (const { stats } of targets) stats.stop();
  const shares = cpu.stop();
  const measuredSeconds = (performance.now() - from) / 1000;
  stopping = true;
  for (const cancel of cancels) cancel();
  await Promise.all(pending);
  const seen = {};
  for (const { name, client, stats } of targets) {
    client.close();
    seen[name] = { ...(stats.summary()[ENDPOINT] ?? { count: 0, rps: 0, p50: null, p99: null, errors: 0, statuses: {} }), sendLag: stats.sendLag() };
  }
  /** CPU milliseconds of process `name` a ping of `target`'s. */
  const msPerPing = (name, target) => (seen[target].count ? (shares[name] * measuredSeconds * 1000) / seen[target].count : null);
  return { seen, shares, msPerPing };
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
  try {
    const urls = { api: ctx.apiUrl, floor: ctx.bareFloorUrl };
    const run = await ctx.measured(() => pingPhase(urls, riders, { api: ctx.pids.api, floor: ctx.cpuRoots.floorHttp, postgres: ctx.cpuRoots.postgres }, o));
    const api = run.msPerPing('api', 'api');
    const floorMs = run.msPerPing('floor', 'floor');
    const ratio = api !== null && floorMs ? api / floorMs : null;
    const asLoad = (target, cpuMs) => ({
      rps: run.seen[target].rps,
      p50: run.seen[target].p50,
      p99: run.seen[target].p99,
      errors: run.seen[target].errors,
      requests: run.seen[target].count,
      statusCodes: run.seen[target].statuses,
      cpuMsPerRequest: cpuMs,
    });
    return {
      name: ENDPOINT,
      baselineName: 'bare node:http, 204',
      connections: o.sockets,
      baseline: asLoad('floor', floorMs),
      ...asLoad('api', api),
      // The whole stack's, as every scenario reports it: the floor's process is not in it.
      cpu: run.cpu,
      memory: run.memory,
      notes:
        `${o.riders} riders, one ping each every ${o.everySeconds} s for ${o.seconds} s to both servers at once; CPU ms/req is ` +
        `each server process's own: API ${round(api, 3)} ms a ping, bare node:http ${round(floorMs, 3)} ms, ${round(ratio, 2)}× ` +
        `(PostgreSQL ${round(run.msPerPing('postgres', 'api'), 3)} ms a ping beside the API)`,
      extra: {
        riders: o.riders,
        everySeconds: o.everySeconds,
        apiCpuMsPerPing: api,
        floorCpuMsPerPing: floorMs,
        ratio,
        postgresCpuMsPerPing: run.msPerPing('postgres', 'api'),
        cores: run.shares,
        sendLag: { api: run.seen.api.sendLag, floor: run.seen.floor.sendLag },
      },
    };
  } finally {
    // Off the map again: later scenarios dispatch to riders of their own.
    await ctx.db.query('update riders set online = false where id = any($1)', [riders.map((r) => r.riderId)]);
  }
}
