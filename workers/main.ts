import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadSettingsOrExit } from '../config/settings';
import { createLogger } from '../config/logger';
import { temporalConnectionOptions } from '../config/temporal';
import { initOrm } from '../db/orm';
import { deliveryWorkflowId } from '../domain/reference';
import { selectGateways } from '../integrations/mobile-money/select';
import { OutboxSms } from '../integrations/sms/outbox';
import { AxiosWebhookHttp } from '../activities/webhook-http';
import { paymentSettledSignal } from '../workflows/messages';
import { installTemporalLogger } from './temporal-logger';
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

  // The sandbox network confirms debits on its own, like a gateway's callback.
  sandbox.onSettled(async (reference, result) => {
    if (result.state === 'pending') return;
    await client.workflow
      .getHandle(deliveryWorkflowId(reference))
      .signal(paymentSettledSignal, { state: result.state, reason: result.reason });
  });

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
    deps: {
      orm,
      gateways,
      sms: new OutboxSms(() => orm.em.fork()),
      webhookHttp: new AxiosWebhookHttp({
        timeoutMs: settings.webhookTimeoutSeconds * 1000,
        allowPrivateAddresses: settings.nodeEnv !== 'production',
        userAgent: 'PartnerDeliveryService-Webhooks/1.0',
      }),
      temporal: client,
      logger,
      settings,
    },
  });
  logger.info('Worker started', {
    taskQueue: settings.temporalTaskQueue,
    namespace: settings.temporalNamespace,
    workflowBundle: settings.workflowBundle ?? null,
    metricsPort: settings.workerMetricsPort || null,
  });
  // SIGINT/SIGTERM make run() stop polling and let running tasks finish (graceful drain).
  await worker.run();
  await client.connection.close();
  await connection.close();
  await orm.close();
  logger.info('Worker stopped');
}

main().catch((error: unknown) => {
  process.stderr.write(`Worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
