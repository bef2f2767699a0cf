import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** One API or worker process of the topology, as the runner reports it. */
export interface TopologyProcess {
  name: string;
  pid: number;
  url?: string;
  port?: number;
  metricsUrl?: string;
  running: boolean;
  starts: number;
}

export interface TopologyInfo {
  /** The load balancer (HAProxy) in front of every API process. */
  baseUrl: string;
  statsUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  temporalPid: number;
  namespace: string;
  logDir: string;
  apis: TopologyProcess[];
  workers: TopologyProcess[];
  /** HAProxy's view of each API process, by name: `UP`, `DOWN`, or on its way (`UP 1/2`…). */
  balancer: Record<string, string>;
}

/** What scripts/lib/topology.mjs's startTopology takes (the parts a test sets). */
export interface TopologyOptions {
  dataDir: string;
  databaseUrl?: string;
  appDatabase?: string;
  temporalDatabases?: { temporal: string; visibility: string };
  apis?: number;
  workers?: number;
  env?: Record<string, string>;
  workflowBundle?: string;
  /** The tree scripts/build.mjs compiled (npm test's TEST_COMPILED_DIR); else it is compiled. */
  compiledDir?: string;
  restartCrashed?: number;
}

export interface Topology {
  info: TopologyInfo;
  /** Kills one API or worker process (its whole process group) and waits for it to be gone. */
  kill(name: string, signal?: NodeJS.Signals): Promise<{ pid: number }>;
  /** Stops the Temporal server (`signal`), waits `downMs`, starts it again and waits for health. */
  restartTemporal(signal?: NodeJS.Signals, downMs?: number): Promise<{ before: number; after: number; tookMs: number }>;
  describe(): Promise<TopologyInfo>;
  stop(): Promise<void>;
}

/**
 * The production topology (the real Temporal server on PostgreSQL, workers, APIs behind HAProxy),
 * started by `npm run topology`'s own code in a child process (test/topology/topology-process.mjs).
 */
export async function startTopology(options: TopologyOptions): Promise<Topology> {
  const runner: ChildProcess = fork(path.resolve(__dirname, '../topology/topology-process.mjs'), [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  const waiting = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>();
  runner.on('message', (message: { id: number; ok: boolean; result?: unknown; error?: string }) => {
    const entry = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.ok) entry?.resolve(message.result);
    else entry?.reject(new Error(message.error));
  });
  runner.once('exit', (code, signal) => {
    for (const entry of waiting.values()) entry.reject(new Error(`the topology process exited (${code ?? signal})`));
    waiting.clear();
  });
  const call = <T>(cmd: string, args: Record<string, unknown> = {}): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      runner.send({ id, cmd, ...args });
    });

  const info = await call<TopologyInfo>('start', { options }).catch(async (error: Error) => {
    runner.kill('SIGTERM');
    throw error;
  });
  return {
    info,
    kill: (name, signal = 'SIGKILL') => call('kill', { name, signal }),
    restartTemporal: (signal = 'SIGTERM', downMs = 0) => call('restart-temporal', { signal, downMs }),
    describe: () => call('describe'),
    async stop() {
      if (runner.exitCode !== null || runner.signalCode !== null) return;
      const exited = new Promise((resolve) => runner.once('exit', resolve));
      await call('stop').catch(() => undefined);
      await exited;
    },
  };
}
