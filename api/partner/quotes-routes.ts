import { Router } from 'express';
import { priceRoute, quoteView } from '../../domain/pricing';
import type { AppDeps } from '../app-deps';
import type { QuoteRequest } from '../openapi/schemas';
import { routeOf } from './booking-service';
import { checkServiceArea, routeWithinLimit } from './service-area-check';

/** POST /partner/quotes: the same pricing function as booking, over the whole route, with the same limits. */
export function createQuotesRouter(deps: AppDeps): Router {
  const router = Router();
  router.post('/partner/quotes', async (req, res) => {
    const body = req.body as QuoteRequest;
    checkServiceArea(deps, body);
    const route = await routeWithinLimit(deps, routeOf(body));
    res.json({ ...quoteView(priceRoute(route.distanceMeters)), distance_estimated: route.estimated });
  });
  return router;
}
