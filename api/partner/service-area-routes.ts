import { Router } from 'express';
import { serviceAreaGeoJson } from '../../domain/service-area';
import type { AppDeps } from '../app-deps';

/**
 * GET /partner/service-area: the areas every pickup, stop and drop-off must lie in, as a GeoJSON
 * FeatureCollection, so a partner can check an address before it books. Built once: the areas
 * are read at start and never change while the process runs.
 */
export function createServiceAreaRouter({ settings }: AppDeps): Router {
  const router = Router();
  const areas = serviceAreaGeoJson(settings.serviceArea);
  router.get('/partner/service-area', (_req, res) => {
    res.json(areas);
  });
  return router;
}
