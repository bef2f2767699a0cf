import { Router } from 'express';
import { priceRoute, quoteView } from '../../domain/pricing';
import type { AppDeps } from '../app-deps';
import type { QuoteRequest } from '../openapi/schemas';
import { routeOf } from './booking-service';

/** POST /partner/quotes: the same pricing function as booking, over the whole route. */
export function createQuotesRouter({ routing }: AppDeps): Router {
  const router = Router();
  router.post('/partner/quotes', async (req, res) => {
    const route = await routing.route(routeOf(req.body as QuoteRequest));
    res.json({ ...quoteView(priceRoute(route.distanceMeters)), distance_estimated: route.estimated });
  });
  return router;
}
