import { Router } from 'express';
import * as riders from '../../db/riders';
import type { AppDeps } from '../app-deps';
import { riderOf } from '../middleware/rider-auth';
import type { PositionPings } from './position-pings';

/**
 * A rider going online or offline, and the position pings of an online rider's app (most of them
 * served by location-fast-path.ts, with the same `pings`).
 */
export function createRiderAvailabilityRouter({ orm }: AppDeps, pings: PositionPings): Router {
  const router = Router();

  // The app asks while it believes it is online: a rider silent too long was set offline, and is told why.
  router.get('/rider/availability', async (_req, res) => {
    const found = await riders.availability(orm.em.fork(), riderOf(res).riderId);
    res.json({ online: found?.online ?? false, offline_reason: found?.online ? null : (found?.offline_reason ?? null) });
  });

  router.put('/rider/availability', async (req, res) => {
    const { online } = req.body as { online: boolean };
    await riders.setOnline(orm.em.fork(), riderOf(res).riderId, online);
    res.json({ online });
  });

  router.post('/rider/location', async (req, res) => {
    const { lat, lng } = req.body as { lat: number; lng: number };
    await pings.record(riderOf(res).riderId, { lat, lng });
    res.status(204).end();
  });

  return router;
}
