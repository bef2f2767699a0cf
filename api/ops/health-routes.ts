import { Router } from 'express';
import { ping } from '../../db/health';
import type { AppDeps } from '../app-deps';
import { envelope } from '../api-error';
import { allowOnly } from '../middleware/allow-only';

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref())]);
}

/** /healthz: the process is up. /readyz: Postgres and Temporal answer, so traffic can come. */
export function createHealthRouter({ orm, temporal }: AppDeps): Router {
  const router = Router();
  router.all('/healthz', allowOnly('GET'));
  router.all('/readyz', allowOnly('GET'));
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const checks: Record<string, string> = {};
    await Promise.all([
      withTimeout(ping(orm.em.fork()), 2000).then(
        () => (checks.database = 'ok'),
        () => (checks.database = 'unreachable'),
      ),
      // The deadline also ends the client's own retries, so probes during an outage never pile up.
      withTimeout(temporal.connection.withDeadline(Date.now() + 2000, () => temporal.connection.workflowService.getSystemInfo({})), 2000).then(
        () => (checks.temporal = 'ok'),
        () => (checks.temporal = 'unreachable'),
      ),
    ]);
    const ready = Object.values(checks).every((value) => value === 'ok');
    if (ready) res.json({ status: 'ready', checks });
    else res.status(503).json(envelope('unavailable', 'Not ready', { checks }));
  });
  return router;
}
