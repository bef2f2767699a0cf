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

/** How deep into logged objects secrets are looked for; deeper values are logged as they are. */
const REDACT_DEPTH = 5;

/**
 * A copy of a logged value with every secret key's value replaced, at any depth (a request's
 * `headers.authorization`, say). Plain objects and arrays are copied, never changed: they are the
 * caller's own.
 */
function redacted(value: unknown, depth: number): unknown {
  if (depth > REDACT_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redacted(item, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = SECRET_KEYS.test(key) ? '[redacted]' : redacted(item, depth + 1);
  return copy;
}

const redactSecrets = winston.format((info) => {
  // `info` is winston's own object for this line; the values under it may be the caller's.
  for (const key of Object.keys(info)) info[key] = SECRET_KEYS.test(key) ? '[redacted]' : redacted(info[key], 1);
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
