// The topology (scripts/lib/topology.mjs) in a process of its own, driven by a test over the IPC
// channel: jest transforms tests to CommonJS, and the start-up scripts are ES modules that must
// run as Node runs them for `npm run topology`. Messages in: {id, cmd: 'start', options},
// {id, cmd: 'kill', name, signal}, {id, cmd: 'restart-temporal', signal, downMs}, {id, cmd: 'stop'}.
// Each is answered {id, ok, result} or {id, ok: false, error}.
import { backendStatus, startTopology } from '../../scripts/lib/topology.mjs';

let topology;

async function describe() {
  const proc = (p) => ({ name: p.name, pid: p.pid, url: p.url, port: p.port, metricsUrl: p.metricsUrl, running: p.running, starts: p.starts });
  return {
    baseUrl: topology.baseUrl,
    statsUrl: topology.statsUrl,
    databaseUrl: topology.databaseUrl,
    temporalAddress: topology.temporal.address,
    temporalPid: topology.temporal.pid,
    namespace: topology.temporal.namespace,
    logDir: topology.logDir,
    apis: topology.apis.map(proc),
    workers: topology.workers.map(proc),
    balancer: await backendStatus(topology.statsUrl).catch(() => ({})),
  };
}

const commands = {
  async start({ options }) {
    topology = await startTopology({ ...options, log: (line) => process.stdout.write(`topology: ${line}\n`) });
    return describe();
  },
  async kill({ name, signal }) {
    const target = [...topology.apis, ...topology.workers].find((p) => p.name === name);
    if (!target) throw new Error(`no process ${name}`);
    const pid = target.pid;
    await target.kill(signal);
    return { pid };
  },
  async 'restart-temporal'({ signal, downMs }) {
    const before = topology.temporal.pid;
    const started = Date.now();
    await topology.temporal.restart({ signal, downMs });
    return { before, after: topology.temporal.pid, tookMs: Date.now() - started };
  },
  async describe() {
    return describe();
  },
  async stop() {
    await topology?.stop();
    topology = undefined;
    return null;
  },
};

process.on('message', (message) => {
  const { id, cmd } = message;
  Promise.resolve()
    .then(() => commands[cmd](message))
    .then(
      (result) => process.send({ id, ok: true, result }),
      (error) => process.send({ id, ok: false, error: error instanceof Error ? error.message : String(error) }),
    )
    .then(() => cmd === 'stop' && process.exit(0));
});
// The test runner went away: take everything down with us.
process.on('disconnect', () => void commands.stop().finally(() => process.exit(0)));
