import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import * as quotes from '../../db/quotes';
import { isoZ } from '../../domain/delivery-view';
import { priceRoute, quoteView } from '../../domain/pricing';
import type { AppDeps } from '../app-deps';
import type { QuoteRequest } from '../openapi/schemas';
import { partnerOf } from '../middleware/partner-auth';
import { routeOf } from './booking-service';
import { checkServiceArea, routeWithinLimit } from './service-area-check';

/** How often one API process clears quotes long expired. */
const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * POST /partner/quotes: the same pricing function as booking, over the whole route, with the same
 * limits. The quote is kept, so a booking that names its `quote_id` before `expires_at` pays it.
 */
export function createQuotesRouter(deps: AppDeps): Router {
  const { orm, settings, logger } = deps;
  const router = Router();
  let nextSweep = 0;
  router.post('/partner/quotes', async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const body = req.body as QuoteRequest;
    checkServiceArea(deps, body);
    const points = routeOf(body);
    const route = await routeWithinLimit(deps, points);
    const fare = priceRoute(route.distanceMeters);
    const em = orm.em.fork();
    if (Date.now() > nextSweep) {
      nextSweep = Date.now() + SWEEP_EVERY_MS;
      void quotes.sweepExpired(em).catch((error: unknown) => logger.warn('Sweeping expired quotes failed', { error: String(error) }));
    }
    const id = randomUUID();
    const expiresAt = await quotes.insert(em, { id, partnerId, mode, route: points, fare, distanceEstimated: route.estimated }, settings.quoteTtlSeconds);
    res.json({ ...quoteView(fare), distance_estimated: route.estimated, quote_id: id, expires_at: isoZ(expiresAt) });
  });
  return router;
}
