// `npm run topology`: the production topology on this machine (scripts/lib/topology.mjs): the real
// Temporal server on PostgreSQL, two workers and two API processes behind HAProxy on one port.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureDependencies, onProjectNode, root, say } from './lib/prepare.mjs';

async function main() {
  ensureDependencies();
  await onProjectNode();
  const { startTopology } = await import('./lib/topology.mjs');
  const { portInUse } = await import('./lib/stack.mjs');
  // Apart from `npm start`'s stack (.data), so both can run at once.
  const dataDir = path.resolve(root, process.env.TOPOLOGY_DATA_DIR ?? '.data/topology');
  // Ports of its own (TOPOLOGY_*), so it runs beside `npm start`'s 3000, 7233 and 8233.
  const port = Number(process.env.TOPOLOGY_PORT ?? 3100);
  const temporalPort = Number(process.env.TOPOLOGY_TEMPORAL_PORT ?? 7433);
  const uiPort = Number(process.env.TOPOLOGY_UI_PORT ?? 8433);
  const count = (name, fallback) => Number(process.env[name] ?? fallback);
  for (const [value, what, variable] of [
    [port, 'the load balancer', 'TOPOLOGY_PORT'],
    [temporalPort, 'Temporal', 'TOPOLOGY_TEMPORAL_PORT'],
    [uiPort, 'the Temporal UI', 'TOPOLOGY_UI_PORT'],
  ]) {
    if (await portInUse(value)) {
      say(`Port ${value} (for ${what}) is already in use. Is the topology running already? Free it or choose another with ${variable}=….`);
      process.exit(1);
    }
  }

  let topology;
  let stopping = false;
  const shutdown = async (code) => {
    if (stopping) return;
    stopping = true;
    say('Stopping…');
    await topology?.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  try {
    topology = await startTopology({
      dataDir,
      databaseUrl: process.env.DATABASE_URL,
      pgPort: count('TOPOLOGY_PG_PORT', 54339),
      port,
      temporalPort,
      uiPort,
      apis: count('TOPOLOGY_APIS', 2),
      workers: count('TOPOLOGY_WORKERS', 2),
      env: { NODE_ENV: process.env.NODE_ENV ?? 'development', SITE_URL: process.env.SITE_URL ?? `http://localhost:${port}` },
      // The UI is built once on first use (TOPOLOGY_UI=0 skips it).
      ui: process.env.TOPOLOGY_UI === '0' ? false : true,
      // As a supervisor would (compose: restart: unless-stopped): a crashed process comes back.
      restartCrashed: 2_000,
    });
    const seed = spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['scripts/seed-demo.ts'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: topology.databaseUrl, NODE_ENV: process.env.NODE_ENV ?? 'development' },
      encoding: 'utf8',
    });
    if (seed.status !== 0) throw new Error(`Seeding the demo partner failed:\n${seed.stderr}`);
    const demo = JSON.parse(seed.stdout.trim().split('\n').pop());
    const base = `http://localhost:${port}`;
    const row = (label, value) => `  ${label.padEnd(16)}${value}`;
    process.stdout.write(`
  Partner Delivery Service is running as in production.

${row('API (HAProxy)', `${base}/api/v1   (docs ${base}/docs, dashboard ${base}/dashboard)`)}
${topology.apis.map((api) => row(`  ${api.name}`, `${api.url}   pid ${api.pid}`)).join('\n')}
${topology.workers.map((worker) => row(`  ${worker.name}`, `metrics ${worker.metricsUrl}   pid ${worker.pid}`)).join('\n')}
${row('HAProxy stats', topology.statsUrl)}
${row('Temporal', `${topology.temporal.address}, namespace ${topology.temporal.namespace} (PostgreSQL persistence), pid ${topology.temporal.pid}`)}
${row('  its metrics', topology.temporal.metricsUrl)}
${row('Temporal UI', topology.uiUrl ?? 'not running')}
${row('Database', topology.databaseUrl.replace(/:[^:@/]+@/, ':•••@'))}
${row('Logs', topology.logDir)}

${demo.api_key ? `${row('Demo partner', `${demo.email} (password: ${demo.password})`)}\n${row('Test API key', demo.api_key)}` : row('Demo partner', demo.skipped)}

  Kill an API or a worker (kill -9 PID): HAProxy stops routing to it within 2 s and it is
  started again 2 s later. Ctrl-C stops everything.
`);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    await shutdown(1);
  }
}

void main();
