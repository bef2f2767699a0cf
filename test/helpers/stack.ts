import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import { DefaultLogger, GracefulShutdownPeriodExpiredError, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { createApp } from '../../api/app';
import { answerMalformedRequests } from '../../api/middleware/host-required';
import type { AppDeps } from '../../api/app-deps';
import type { ActivityDeps } from '../../activities/deps';
import { createLogger } from '../../config/logger';
import { loadSettings, type Settings } from '../../config/settings';
import { initOrm, type Orm } from '../../db/orm';
import { sandboxLedger } from '../../db/sandbox-ledger';
import { selectGateways } from '../../integrations/mobile-money/select';
import { selectMapProviders } from '../../integrations/select';
import { LocalFilePhotos } from '../../integrations/storage/local-files';
import { selectPhotoStore } from '../../integrations/storage/select';
import { selectCallMasking } from '../../integrations/calling/select';
import { callSessionStore, numberPoolStore, proxySessionStore } from '../../db/call-sessions';
import { activityDeps, signalWhenDebitsSettle } from '../../workers/activity-deps';
import { runWorker } from '../../workers/run-worker';
import { ensureSchedules, projectSchedules, removeSchedules } from '../../workers/schedules';
import { createWorkers, tuningFrom } from '../../workers/worker';
import type { KeyMode } from '../../domain/api-key';
import { connectTemporal } from './temporal-connection';

/** How long a test worker may take to stop before it is stopped by force. */
const WORKER_STOP_LIMIT_MS = 30_000;

/** Short timers: time-skipping is not available on the dev server, so tests shrink every wait. */
export const FAST_TIMINGS: Record<string, string> = {
  DISPATCH_TIMEOUT_SECONDS: '30',
  DISPATCH_WIDEN_SECONDS: '1',
  WEBHOOK_RETRY_INITIAL_SECONDS: '0.2',
  WEBHOOK_RETRY_COEFFICIENT: '2',
  WEBHOOK_TIMEOUT_SECONDS: '2',
  ROBO_RIDER_STEP_SECONDS: '0.1',
  PAYMENT_POLL_SECONDS: '0.5',
  DEBIT_RETRY_INITIAL_SECONDS: '0.2',
  SANDBOX_CONFIRM_MS: '200',
  // Test riders stand where a test put them and their apps send no pings: dispatch still counts
  // them fresh for the length of a test file. The street-watch tests shorten it again.
  RIDER_FRESH_SECONDS: '3600',
};

/** The SDK's own logs only when something is wrong; installed once per jest worker process. */
function quietTemporalLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed by an earlier test file in this process.
  }
}

export interface TestStack {
  settings: Settings;
  orm: Orm;
  temporal: Client;
  baseUrl: string;
  /** The worker of the live queue, and of the test queue: one process's two Workers, as in production. */
  worker: Worker | null;
  testWorker: Worker | null;
  deps: AppDeps;
  /** Restarts the workers (after `stopWorker`), as a crashed worker process would be; `queues` picks some. */
  startWorker(queues?: KeyMode[]): Promise<void>;
  stopWorker(queues?: KeyMode[]): Promise<void>;
  close(): Promise<void>;
}

export interface StackOptions {
  env?: Record<string, string>;
  /** Start without workers (the test starts them later, or never). */
  withoutWorker?: boolean;
  activityOverrides?: Partial<ActivityDeps>;
  appOverrides?: Partial<AppDeps>;
  /**
   * Run the project's Temporal Schedules (the booking sweeper) on this stack's task queue, as a
   * worker process does, at the intervals `env` sets; deleted when the stack closes.
   */
  withSchedules?: boolean;
}

/**
 * A real API (listening on a loopback port) and real workers on task queues of this test file's
 * own (the live one and its test-mode one), against the shared dev server and database that `npm test` started.
 */
export async function startTestStack(options: StackOptions = {}): Promise<TestStack> {
  quietTemporalLogs();
  const settings = loadSettings({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`,
    DATABASE_POOL_MAX: '8',
    ...FAST_TIMINGS,
    ...options.env,
  });
  const logger = createLogger({ level: settings.logLevel, json: false, service: 'test' });
  const orm = await initOrm(settings.databaseUrl, settings.databasePoolMax);
  const clientConnection = await connectTemporal(settings.temporalAddress);
  const temporal = new Client({ connection: clientConnection.connection, namespace: settings.temporalNamespace });
  const { sandbox, gateways } = selectGateways(settings, sandboxLedger(() => orm.em.fork()));
  signalWhenDebitsSettle(sandbox, temporal, orm);
  const maps = selectMapProviders(settings, logger);
  const deps: AppDeps = {
    settings,
    orm,
    temporal,
    logger,
    gateways,
    // As api/main.ts wires it when `env` sets PHOTO_STORE=s3; local files in a folder of the tests' own otherwise.
    photos: settings.photoStore === 's3' ? selectPhotoStore(settings) : new LocalFilePhotos(`${settings.dataDir}/test/uploads`),
    // As api/main.ts wires it: the local bridge unless `env` sets CALL_MASKING.
    calling: selectCallMasking(settings, {
      local: callSessionStore(() => orm.em.fork()),
      proxy: proxySessionStore(() => orm.em.fork(), settings.callMasking),
      pool: numberPoolStore(() => orm.em.fork()),
    }),
    validateResponses: true,
    ...maps,
    ...options.appOverrides,
  };
  const { listener } = createApp(deps);
  const server: Server = await new Promise((resolve) => {
    const s = createServer(listener).listen(0, '127.0.0.1', () => resolve(s));
    answerMalformedRequests(s);
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let nativeConnection: NativeConnection | null = null;
  const running = new Map<KeyMode, { worker: Worker; run: Promise<boolean> }>();
  let workerForced = false;
  const stack: TestStack = {
    settings,
    orm,
    temporal,
    baseUrl,
    worker: null,
    testWorker: null,
    deps,
    async startWorker(queues: KeyMode[] = ['live', 'test']) {
      nativeConnection ??= await NativeConnection.connect({ address: settings.temporalAddress });
      // The capacity settings as a worker process reads them (WORKER_TEST_MAX_… included).
      const tuning = tuningFrom(settings);
      const workers = await createWorkers({
        connection: nativeConnection,
        namespace: settings.temporalNamespace,
        liveQueue: settings.temporalTaskQueue,
        queues: queues.filter((mode) => !running.has(mode)),
        workflowBundlePath: process.env.WORKFLOW_BUNDLE,
        // The API's photo store, so the worker removes the photos the API kept.
        deps: { ...activityDeps({ settings, orm, temporal, logger, gateways, photos: deps.photos }), ...options.activityOverrides },
        // A suite's teardown must end within jest's hook timeout even when a shutdown stalls.
        tuning: {
          live: { ...tuning.live, shutdownForceTime: `${WORKER_STOP_LIMIT_MS}ms` },
          test: { ...tuning.test, shutdownForceTime: `${WORKER_STOP_LIMIT_MS}ms` },
        },
      });
      for (const { mode, worker } of workers) {
        running.set(mode, { worker, run: runWorker(worker) });
        if (mode === 'live') stack.worker = worker;
        else stack.testWorker = worker;
      }
    },
    async stopWorker(queues: KeyMode[] = ['live', 'test']) {
      const stopping = Date.now();
      const stopped = queues.flatMap((mode) => {
        const entry = running.get(mode);
        if (!entry) return [];
        if (entry.worker.getState() === 'RUNNING') entry.worker.shutdown();
        running.delete(mode);
        if (mode === 'live') stack.worker = null;
        else stack.testWorker = null;
        return [entry.run];
      });
      const released = await Promise.all(
        stopped.map((run) =>
          run.catch((error: unknown) => {
            if (!(error instanceof GracefulShutdownPeriodExpiredError)) throw error;
            return false;
          }),
        ),
      );
      // A worker stopped by force, or one the SDK still holds, keeps its connection held.
      if (released.includes(false)) workerForced = true;
      // Said out loud: a shutdown this slow is worth a look, even when the suite passes.
      const tookMs = Date.now() - stopping;
      if (tookMs > 10_000) process.stderr.write(`test stack: the worker took ${tookMs} ms to stop\n`);
    },
    async close() {
      if (options.withSchedules) await removeSchedules(temporal, projectSchedules(settings));
      await stack.stopWorker();
      await new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      // A worker stopped by force still holds its connection; the test process ends soon anyway.
      if (!workerForced) await nativeConnection?.close();
      await clientConnection.close();
      await orm.close();
    },
  };
  if (!options.withoutWorker) await stack.startWorker();
  if (options.withSchedules) await ensureSchedules(temporal, projectSchedules(settings));
  return stack;
}
