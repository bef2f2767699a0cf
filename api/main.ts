import { createServer } from 'node:http';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { loadSettingsOrExit, sandboxedInProduction, sandboxWarning } from '../config/settings';
import { createLogger } from '../config/logger';
import { temporalConnectionOptions } from '../config/temporal';
import { initOrm } from '../db/orm';
import { sandboxLedger } from '../db/sandbox-ledger';
import { selectGateways } from '../integrations/mobile-money/select';
import { selectMapProviders } from '../integrations/select';
import { selectPhotoStore } from '../integrations/storage/select';
import { selectCallMasking } from '../integrations/calling/select';
import { callSessionStore, numberPoolStore, proxySessionStore } from '../db/call-sessions';
import { createApp } from './app';
import { answerMalformedRequests } from './middleware/host-required';

/** `npm run api`: one API process; run as many as the load needs behind a balancer. */
async function main(): Promise<void> {
  const settings = loadSettingsOrExit();
  const logger = createLogger({ level: settings.logLevel, json: settings.nodeEnv === 'production', service: 'api' });
  // Before connecting to anything, so a staging process says so even when it then fails to start.
  const warning = sandboxWarning(settings);
  if (warning) logger.warn(warning, { sandboxed: sandboxedInProduction(settings) });
  const orm = await initOrm(settings.databaseUrl, settings.databasePoolMax);
  // Connect lazily: the API starts (and answers 503) even while Temporal is still coming up.
  // Calls retry for about a second, then the request answers 503 instead of holding on for 20 s.
  const connection = Connection.lazy({
    ...temporalConnectionOptions(settings),
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 4 }))],
  });
  const temporal = new Client({ connection, namespace: settings.temporalNamespace });
  const { gateways } = selectGateways(settings, sandboxLedger(() => orm.em.fork()));
  const { listener } = createApp({
    settings,
    orm,
    temporal,
    logger,
    gateways,
    photos: selectPhotoStore(settings),
    calling: selectCallMasking(settings, {
      local: callSessionStore(() => orm.em.fork()),
      proxy: proxySessionStore(() => orm.em.fork(), settings.callMasking),
      pool: numberPoolStore(() => orm.em.fork()),
    }),
    ...selectMapProviders(settings, logger),
  });
  const server = createServer(listener).listen(settings.port, () => logger.info('API listening', { port: settings.port, siteUrl: settings.siteUrl }));
  answerMalformedRequests(server);
  server.requestTimeout = 30_000;
  server.headersTimeout = 20_000;
  server.keepAliveTimeout = 65_000;

  // Graceful shutdown: stop accepting, let in-flight requests finish, then close pools.
  const stop = (signal: string) => {
    logger.info('API stopping', { signal });
    server.close(() => {
      void Promise.allSettled([connection.close(), orm.close()]).then(() => process.exit(0));
    });
    // Keep-alive connections go as soon as their request is answered, not after keepAliveTimeout.
    setInterval(() => server.closeIdleConnections(), 100).unref();
    setTimeout(() => process.exit(0), 15_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`API failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
