import { Router, type RequestHandler } from 'express';
import * as deliveries from '../../db/deliveries';
import { deliveryView } from '../../domain/delivery-view';
import type { SandboxStep } from '../../domain/sandbox-rider';
import type { AppDeps } from '../app-deps';
import { ApiError, requireUuid } from '../api-error';
import { partnerOf } from '../middleware/partner-auth';
import { createSandboxSteps } from './sandbox-steps';

/** Where a partner drives the manual sandbox rider of a test-mode delivery. */
export const SIMULATE_PATH = '/partner/deliveries/:id/simulate';

/**
 * Live keys see no sandbox: the path answers them as a path that does not exist would, whatever
 * the method or body, so a live integration cannot move a real delivery and learns nothing here.
 * Mounted before the request validator.
 */
export const liveKeysSeeNoSandbox: RequestHandler = (_req, res, next) => {
  next(partnerOf(res).mode === 'live' ? ApiError.notFound('No such route') : undefined);
};

/** `POST /partner/deliveries/{id}/simulate`: one step of a manual sandbox rider, answered with the Delivery. */
export function createSandboxRouter(deps: AppDeps): Router {
  const { orm, settings } = deps;
  const router = Router();
  const steps = createSandboxSteps(deps);

  router.post(SIMULATE_PATH, async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const id = requireUuid(req.params.id, 'Unknown delivery');
    const parts = await deliveries.load(orm.em.fork(), id);
    // Test-mode deliveries of this partner only: anything else is unknown (404), never forbidden.
    if (!parts || parts.delivery.partnerId !== partnerId || parts.delivery.mode !== mode || mode !== 'test') {
      throw ApiError.notFound('Unknown delivery');
    }
    await steps.take(parts, (req.body as { step: SandboxStep }).step);
    const fresh = await deliveries.load(orm.em.fork(), id);
    res.json(deliveryView(fresh ?? parts, settings.siteUrl));
  });

  return router;
}
