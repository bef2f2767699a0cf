import { Router } from 'express';
import { apiRegistry } from '../metrics';
import { allowOnly } from '../middleware/allow-only';

/** GET /metrics: this API process's metrics in the Prometheus text format. */
export function createMetricsRouter(): Router {
  const router = Router();
  router.all('/metrics', allowOnly('GET'));
  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', apiRegistry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(await apiRegistry.metrics());
  });
  return router;
}
