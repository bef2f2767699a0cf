import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../config/logger';

const LEVELS: Record<LogLevel, 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'debug',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * Routes the Temporal SDK's own log lines through winston, so every line has one format, and
 * (with a port) serves the SDK's metrics and the worker's business counters for Prometheus at
 * `:<port>/metrics`. The runtime is installed once per process, so both go in one call.
 */
export function installTemporalLogger(
  logger: Logger,
  level: LogLevel = 'INFO',
  telemetry: { metricsPort?: number; metricsHost?: string } = {},
): void {
  Runtime.install({
    logger: new DefaultLogger(level, ({ level: sdkLevel, message, meta }) => {
      logger.log(LEVELS[sdkLevel], message, { ...meta, source: 'temporal-sdk' });
    }),
    ...(telemetry.metricsPort
      ? { telemetryOptions: { metrics: { prometheus: { bindAddress: `${telemetry.metricsHost ?? '0.0.0.0'}:${telemetry.metricsPort}` } } } }
      : {}),
  });
}
