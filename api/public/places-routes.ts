import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';

/** Open place search, for booking coordinates. */
export function createPlacesRouter({ places }: AppDeps): Router {
  const router = Router();
  router.get('/places/autocomplete', async (req, res) => {
    res.json(await places.autocomplete(String(req.query.q ?? ''), 10));
  });
  router.get('/places/resolve', async (req, res) => {
    const place = await places.resolve(String(req.query.place_id ?? ''));
    if (!place) throw ApiError.notFound('Unknown place');
    res.json(place);
  });
  return router;
}
