import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadSettingsOrExit } from '../config/settings';
import { createLogger } from '../config/logger';
import { temporalConnectionOptions } from '../config/temporal';
import { initOrm } from '../db/orm';
import { selectGateways } from '../integrations/mobile-money/select';
import { activityDeps, signalWhenDebitsSettle } from './activity-deps';
import { installTemporalLogger } from './temporal-logger';
import { runWorker } from './run-worker';
import { createWorker } from './worker';

/** `npm run worker`: one worker process; run as many as the load needs. */
async function main(): Promise<void> {
  const settings = loadSettingsOrExit();
  const logger = createLogger({ level: settings.logLevel, json: settings.nodeEnv === 'production', service: 'worker' });
  installTemporalLogger(logger, settings.nodeEnv === 'production' ? 'INFO' : 'WARN', { metricsPort: settings.workerMetricsPort });
  const orm = await initOrm(settings.databaseUrl, settings.databasePoolMax);
  const options = temporalConnectionOptions(settings);
  const connection = await NativeConnection.connect(options);
  const client = new Client({ connection: await Connection.connect(options), namespace: settings.temporalNamespace });
  const { sandbox, gateways } = selectGateways(settings, () => orm.em.fork());

  signalWhenDebitsSettle(sandbox, client);

  const worker = await createWorker({
    connection,
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalTaskQueue,
    workflowBundlePath: settings.workflowBundle,
    tuning: {
      ...(settings.workerMaxConcurrentActivities ? { maxConcurrentActivityTaskExecutions: settings.workerMaxConcurrentActivities } : {}),
      ...(settings.workerMaxConcurrentWorkflowTasks ? { maxConcurrentWorkflowTaskExecutions: settings.workerMaxConcurrentWorkflowTasks } : {}),
      ...(settings.workerMaxCachedWorkflows ? { maxCachedWorkflows: settings.workerMaxCachedWorkflows } : {}),
    },
    deps: activityDeps({ settings, orm, temporal: client, logger, gateways }),
  });
  logger.info('Worker started', {
    taskQueue: settings.temporalTaskQueue,
    namespace: settings.temporalNamespace,
    workflowBundle: settings.workflowBundle ?? null,
    metricsPort: settings.workerMetricsPort || null,
  });
  // SIGINT/SIGTERM make run() stop polling and let running tasks finish (graceful drain).
  const released = await runWorker(worker);
  await client.connection.close();
  if (released) await connection.close();
  await orm.close();
  logger.info('Worker stopped');
  // The drain is done; the connection the SDK still holds is left to the process's end.
  if (!released) process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`Worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
