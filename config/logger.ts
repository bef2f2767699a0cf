import { AsyncLocalStorage } from 'node:async_hooks';
import winston from 'winston';

/** Carries the request id (and other context) to every log line written while serving a request. */
export const logContext = new AsyncLocalStorage<Record<string, string>>();

const withContext = winston.format((info) => {
  const context = logContext.getStore();
  return context ? Object.assign(info, context) : info;
});

/** Keys whose values never reach a log line, whatever logs them. */
const SECRET_KEYS = /^(authorization|password|api_key|apiKey|secret|webhook_secret|otp|code|token|cookie)$/i;

const redactSecrets = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (SECRET_KEYS.test(key)) info[key] = '[redacted]';
  }
  return info;
});

export type Logger = winston.Logger;

export function createLogger(options: { level: string; json: boolean; service: string }): Logger {
  // Winston runs every format before its transport drops a line below the level; lines nobody
  // will see (the per-request `http` line, say) are dropped first, before any formatting.
  const wanted = winston.format((info) => (logger.isLevelEnabled(info.level) ? info : false));
  const common = [wanted(), withContext(), redactSecrets(), winston.format.timestamp(), winston.format.errors({ stack: true })];
  const logger: Logger = winston.createLogger({
    level: options.level,
    defaultMeta: { service: options.service },
    format: options.json
      ? winston.format.combine(...common, winston.format.json())
      : winston.format.combine(
          ...common,
          winston.format.colorize(),
          winston.format.printf(({ timestamp, level, message, service, requestId, stack, ...rest }) => {
            const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
            const rid = requestId ? ` [${String(requestId)}]` : '';
            return `${String(timestamp)} ${level} ${String(service)}${rid}: ${String(message)}${extra}${stack ? `\n${String(stack)}` : ''}`;
          }),
        ),
    transports: [new winston.transports.Console()],
  });
  return logger;
}
