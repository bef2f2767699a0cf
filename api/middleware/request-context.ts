import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { logContext, type Logger } from '../../config/logger';

/**
 * Gives every request an id (kept from `X-Request-Id` when sane), returns it in a header, and
 * carries it to every log line written while the request is served.
 */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const requestId = startRequest(logger, req, res, () => ({
      // A route whose path carries a secret (a provider's callback) names its template instead.
      path: typeof res.locals.logPath === 'string' ? res.locals.logPath : req.path,
      ...(res.locals.partnerId ? { partnerId: res.locals.partnerId } : {}),
    }));
    res.locals.requestId = requestId;
    logContext.run({ requestId }, () => next());
  };
}

/**
 * A request's id, in its `X-Request-Id` answer header and returned; and, where `http` lines are
 * logged, the request's line once it is answered, with the path (and partner) `describe` then gives.
 */
export function startRequest(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  describe: () => { path: string; partnerId?: unknown },
): string {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && /^[A-Za-z0-9._-]{1,100}$/.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  // Most deployments log at `info`: then the per-request line is never built.
  if (logger.isLevelEnabled('http')) {
    const started = performance.now();
    res.on('finish', () => {
      const { path, ...partner } = describe();
      logContext.run({ requestId }, () =>
        logger.http('request', { method: req.method, path, status: res.statusCode, ms: Math.round(performance.now() - started), ...partner }),
      );
    });
  }
  return requestId;
}
