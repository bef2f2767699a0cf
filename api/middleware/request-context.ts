import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { logContext, type Logger } from '../../config/logger';

/**
 * Gives every request an id (kept from `X-Request-Id` when sane), returns it in a header, and
 * carries it to every log line written while the request is served.
 */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && /^[A-Za-z0-9._-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    // Most deployments log at `info`: then the per-request line is never built.
    if (logger.isLevelEnabled('http')) {
      const started = performance.now();
      res.on('finish', () => {
        logContext.run({ requestId }, () =>
          logger.http('request', {
            method: req.method,
            // A route whose path carries a secret (a provider's callback) names its template instead.
            path: typeof res.locals.logPath === 'string' ? res.locals.logPath : req.path,
            status: res.statusCode,
            ms: Math.round(performance.now() - started),
            ...(res.locals.partnerId ? { partnerId: res.locals.partnerId } : {}),
          }),
        );
      });
    }
    logContext.run({ requestId }, () => next());
  };
}
