import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { ApiError } from '../api-error';
import { apiRegistry } from '../metric-registry';
import { allowOnly } from '../middleware/allow-only';

/**
 * Requires `Authorization: Bearer <METRICS_TOKEN>` when a token is set (production always sets
 * one): route names, traffic and error rates tell an outsider what to probe. Both sides are hashed
 * first so the comparison takes the same time whatever the lengths.
 */
function metricsToken(token: string | undefined): RequestHandler {
  if (token === undefined) return (_req, _res, next) => next();
  const expected = createHash('sha256').update(token).digest();
  return (req, _res, next) => {
    const given = /^Bearer (\S+)$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
    if (!timingSafeEqual(createHash('sha256').update(given).digest(), expected)) {
      return next(ApiError.unauthorized('GET /metrics requires Authorization: Bearer <METRICS_TOKEN>'));
    }
    next();
  };
}

/** GET /metrics: this API process's metrics in the Prometheus text format. */
export function createMetricsRouter(settings: { metricsToken?: string }): Router {
  const router = Router();
  router.use('/metrics', metricsToken(settings.metricsToken));
  router.all('/metrics', allowOnly('GET'));
  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', apiRegistry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(await apiRegistry.metrics());
  });
  return router;
}
