import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, GracefulShutdownPeriodExpiredError, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { createApp } from '../../api/app';
import { answerMalformedRequests } from '../../api/client-errors';
import type { AppDeps } from '../../api/deps';
import type { ActivityDeps } from '../../activities/deps';
import { createLogger } from '../../config/logger';
import { loadSettings, type Settings } from '../../config/settings';
import { initOrm, type Orm } from '../../db/orm';
import { selectGateways } from '../../integrations/mobile-money/select';
import { selectMapProviders } from '../../integrations/select';
import { LocalFilePhotos } from '../../integrations/storage/local-files';
import { activityDeps, signalWhenDebitsSettle } from '../../workers/activity-deps';
import { runWorker } from '../../workers/run-worker';
import { createWorker } from '../../workers/worker';

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
  BOOKING_COMMIT_GRACE_SECONDS: '10',
  SANDBOX_CONFIRM_MS: '200',
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
  worker: Worker | null;
  deps: AppDeps;
  /** Restarts the worker (after `stopWorker`), as a crashed worker process would be. */
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

export interface StackOptions {
  env?: Record<string, string>;
  /** Start without a worker (the test starts it later, or never). */
  withoutWorker?: boolean;
  activityOverrides?: Partial<ActivityDeps>;
  appOverrides?: Partial<AppDeps>;
}

/**
 * A real API (listening on a loopback port) and a real worker on a task queue of this test
 * file's own, against the shared dev server and database that `npm test` started.
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
  const clientConnection = await Connection.connect({ address: settings.temporalAddress });
  const temporal = new Client({ connection: clientConnection, namespace: settings.temporalNamespace });
  const { sandbox, gateways } = selectGateways(settings, () => orm.em.fork());
  signalWhenDebitsSettle(sandbox, temporal);
  const maps = selectMapProviders(settings, logger);
  const deps: AppDeps = {
    settings,
    orm,
    temporal,
    logger,
    gateways,
    photos: new LocalFilePhotos(`${settings.dataDir}/test/uploads`),
    validateResponses: true,
    ...maps,
    ...options.appOverrides,
  };
  const app = createApp(deps);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
    answerMalformedRequests(s);
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let nativeConnection: NativeConnection | null = null;
  let running: Promise<boolean> | null = null;
  let workerForced = false;
  const stack: TestStack = {
    settings,
    orm,
    temporal,
    baseUrl,
    worker: null,
    deps,
    async startWorker() {
      nativeConnection ??= await NativeConnection.connect({ address: settings.temporalAddress });
      const worker = await createWorker({
        connection: nativeConnection,
        namespace: settings.temporalNamespace,
        taskQueue: settings.temporalTaskQueue,
        workflowBundlePath: process.env.WORKFLOW_BUNDLE,
        deps: { ...activityDeps({ settings, orm, temporal, logger, gateways }), ...options.activityOverrides },
        // A suite's teardown must end within jest's hook timeout even when a shutdown stalls.
        tuning: { shutdownForceTime: `${WORKER_STOP_LIMIT_MS}ms` },
      });
      stack.worker = worker;
      running = runWorker(worker);
    },
    async stopWorker() {
      if (stack.worker && stack.worker.getState() === 'RUNNING') stack.worker.shutdown();
      const stopping = Date.now();
      const released = await running?.catch((error: unknown) => {
        if (!(error instanceof GracefulShutdownPeriodExpiredError)) throw error;
        return false;
      });
      // A worker stopped by force, or one the SDK still holds, keeps its connection held.
      if (released === false) workerForced = true;
      // Said out loud: a shutdown this slow is worth a look, even when the suite passes.
      const tookMs = Date.now() - stopping;
      if (tookMs > 10_000) process.stderr.write(`test stack: the worker took ${tookMs} ms to stop\n`);
      running = null;
      stack.worker = null;
    },
    async close() {
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
  return stack;
}
