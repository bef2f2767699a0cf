import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../config/logger';

const LEVELS: Record<LogLevel, 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'debug',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/** Routes the Temporal SDK's own log lines through winston, so every line has one format. */
export function installTemporalLogger(logger: Logger, level: LogLevel = 'INFO'): void {
  Runtime.install({
    logger: new DefaultLogger(level, ({ level: sdkLevel, message, meta }) => {
      logger.log(LEVELS[sdkLevel], message, { ...meta, source: 'temporal-sdk' });
    }),
  });
}
