import { Client, Connection } from '@temporalio/client';
import { GracefulShutdownPeriodExpiredError, NativeConnection, type Worker } from '@temporalio/worker';
import { loadSettingsOrExit, sandboxedInProduction, sandboxWarning } from '../config/settings';
import { createLogger } from '../config/logger';
import { temporalConnectionOptions } from '../config/temporal';
import { initOrm } from '../db/orm';
import { sandboxLedger } from '../db/sandbox-ledger';
import { selectGateways } from '../integrations/mobile-money/select';
import { activityDeps, signalWhenDebitsSettle } from './activity-deps';
import { installTemporalLogger } from './temporal-logger';
import { runWorker } from './run-worker';
import { ensureSchedules, projectSchedules } from './schedules';
import { createWorkers, tuningFrom } from './worker';

/** How often a slow drain reports what it still waits for. */
const DRAIN_REPORT_MS = 10_000;

/** What each queue's worker still holds while it drains: its state, its polls and the tasks in flight. */
function drainStatus(workers: { worker: Worker; taskQueue: string }[]) {
  return workers.map(({ worker, taskQueue }) => {
    const status = worker.getStatus();
    return {
      taskQueue,
      runState: status.runState,
      workflowPoll: status.hasOutstandingWorkflowPoll,
      activityPoll: status.hasOutstandingActivityPoll,
      workflowActivations: status.numInFlightWorkflowActivations,
      activities: status.numInFlightActivities,
      localActivities: status.numInFlightLocalActivities,
      cachedWorkflows: status.numCachedWorkflows,
    };
  });
}

/** `npm run worker`: one worker process, polling the queues WORKER_QUEUES names; run as many as the load needs. */
async function main(): Promise<void> {
  const settings = loadSettingsOrExit();
  const logger = createLogger({ level: settings.logLevel, json: settings.nodeEnv === 'production', service: 'worker' });
  // Before connecting to anything, so a staging process says so even when it then fails to start.
  const warning = sandboxWarning(settings);
  if (warning) logger.warn(warning, { sandboxed: sandboxedInProduction(settings) });
  installTemporalLogger(logger, settings.nodeEnv === 'production' ? 'INFO' : 'WARN', { metricsPort: settings.workerMetricsPort });
  const orm = await initOrm(settings.databaseUrl, settings.databasePoolMax);
  const options = temporalConnectionOptions(settings);
  const connection = await NativeConnection.connect(options);
  const client = new Client({ connection: await Connection.connect(options), namespace: settings.temporalNamespace });
  const { sandbox, gateways } = selectGateways(settings, sandboxLedger(() => orm.em.fork()));

  signalWhenDebitsSettle(sandbox, client, orm);

  const workers = await createWorkers({
    connection,
    namespace: settings.temporalNamespace,
    liveQueue: settings.temporalTaskQueue,
    queues: settings.workerQueues,
    workflowBundlePath: settings.workflowBundle,
    tuning: tuningFrom(settings),
    deps: activityDeps({ settings, orm, temporal: client, logger, gateways }),
  });
  // Every worker keeps the schedules as its settings say: the first creates them, later ones update.
  await ensureSchedules(client, projectSchedules(settings));
  logger.info('Worker started', {
    taskQueues: workers.map((w) => w.taskQueue),
    namespace: settings.temporalNamespace,
    workflowBundle: settings.workflowBundle ?? null,
    metricsPort: settings.workerMetricsPort || null,
  });
  // SIGINT/SIGTERM make run() stop polling and let running tasks finish (graceful drain).
  // Each queue's worker drains on the same signal; the process ends when all have.
  let stoppingSince: number | undefined;
  let draining: NodeJS.Timeout | undefined;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stoppingSince ??= Date.now();
      logger.info('Worker stopping', { signal });
      // A drain that takes long says what it is waiting for, every 10 s, until it ends.
      draining ??= setInterval(() => logger.warn('Worker still draining', { sinceMs: Date.now() - (stoppingSince ?? 0), queues: drainStatus(workers) }), DRAIN_REPORT_MS);
      draining.unref();
    });
  }
  // A drain that outlives WORKER_SHUTDOWN_FORCE_SECONDS is ended by force, said with what it held.
  const drained = (worker: Worker) =>
    runWorker(worker).catch((error: unknown) => {
      if (!(error instanceof GracefulShutdownPeriodExpiredError)) throw error;
      logger.warn('Worker stopped by force: its drain outlived WORKER_SHUTDOWN_FORCE_SECONDS', { seconds: settings.workerShutdownForceSeconds });
      return false;
    });
  const released = (await Promise.all(workers.map(({ worker }) => drained(worker)))).every(Boolean);
  clearInterval(draining);
  await client.connection.close();
  if (released) await connection.close();
  await orm.close();
  logger.info('Worker stopped', { drainMs: stoppingSince === undefined ? null : Date.now() - stoppingSince });
  // The drain is done; the connection the SDK still holds is left to the process's end.
  if (!released) process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`Worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
