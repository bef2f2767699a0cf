import { Router, type NextFunction, type Request, type Response } from 'express';
import * as tracking from '../../db/tracking';
import { isoZ } from '../../domain/delivery-view';
import { ETA_REFRESH_SECONDS, type EtaStop } from '../../domain/eta';
import { ACTIVE_FOR_RIDER, type DeliveryStatus } from '../../domain/lifecycle';
import { deliveryReference } from '../../domain/reference';
import { firstNameAndInitial } from '../../domain/redaction';
import type { AppDeps } from '../app-deps';
import { ApiError, requireUuid } from '../api-error';
import { etaFor } from '../live-eta';
import { VersionedViewCache, sendJsonBytes } from '../view-cache';

/** The public view is the one surface any web page may read: any origin, no credentials. */
export function publicCors(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', req.get('access-control-request-headers') ?? 'Content-Type');
  res.setHeader('Access-Control-Max-Age', '600');
  // A page polling from another origin must be able to read how long to back off when limited.
  res.setHeader('Access-Control-Expose-Headers', 'Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, X-Request-Id');
  if (req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  next();
}

/**
 * GET /track/{id}/public: the redacted view. The id is the credential. No phone number, fare or
 * hand-over code is ever in it; names are a first name and an initial.
 */
export function createTrackingRouter({ orm, eta, settings, logger }: AppDeps): Router {
  const router = Router();
  const onEtaError = (error: unknown) =>
    logger.warn('ETA provider failed; serving the last figure', { error: error instanceof Error ? error.message : String(error) });

  // Many recipients may poll one delivery: an unchanged view is sent from its kept bytes. Kept
  // for 5 s at most, as the ETA in it also ages (it is recomputed at most every 20 s).
  const views = new VersionedViewCache(10_000, 5_000);

  router.get('/track/:id/public', async (req, res) => {
    const id = requireUuid(req.params.id, 'Unknown delivery');
    // Live data behind a bearer-like id: neither caches nor search engines keep it.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Robots-Tag', 'noindex');
    const em = orm.em.fork();
    // A recipient's page usually polls a delivery nobody else watches, less often than a view is
    // kept: only when a kept view could still be sent is its version worth a round trip.
    if (views.holds(id)) {
      const current = await tracking.version(em, id);
      if (current === null) throw ApiError.notFound('Unknown delivery');
      const kept = views.get(id, current);
      if (kept !== undefined) return sendJsonBytes(res, kept);
    }
    const d = await tracking.publicView(em, id, ETA_REFRESH_SECONDS);
    if (!d) throw ApiError.notFound('Unknown delivery');
    const stops: EtaStop[] = d.stops.map((s) => ({ position: s.position, status: s.status, dropoffLat: s.dropoff_lat, dropoffLng: s.dropoff_lng }));
    const hasRider = d.rider_name !== null;
    // The rider's position is shown only while they are on this job: once it has ended, where
    // they go next is no business of whoever holds this delivery's id.
    const onThisJob = hasRider && ACTIVE_FOR_RIDER.includes(d.status as DeliveryStatus);
    const riderPosition = onThisJob && d.rider_lat !== null && d.rider_lng !== null ? { lat: d.rider_lat, lng: d.rider_lng } : null;
    const estimate = await etaFor(
      orm,
      eta,
      {
        id: d.id,
        status: d.status,
        pickupLat: d.pickup_lat,
        pickupLng: d.pickup_lng,
        dropoffLat: d.dropoff_lat,
        dropoffLng: d.dropoff_lng,
        etaMin: d.eta_min,
        etaLegsMin: d.eta_legs_min,
        etaFresh: d.eta_fresh,
      },
      stops,
      riderPosition,
      onEtaError,
    );
    const view = {
      reference: deliveryReference(d.id, settings.referencePrefix),
      status: d.status,
      package_size: d.package_size,
      pickup_address: d.pickup_address,
      pickup_lat: d.pickup_lat,
      pickup_lng: d.pickup_lng,
      dropoff_address: d.dropoff_address,
      dropoff_lat: d.dropoff_lat,
      dropoff_lng: d.dropoff_lng,
      recipient_name: firstNameAndInitial(d.recipient_name),
      eta_min: estimate.finalMin,
      rider: hasRider
        ? {
            name: firstNameAndInitial(d.rider_name as string),
            vehicle: d.rider_vehicle,
            rating: d.rider_rating === null ? null : Number(d.rider_rating),
            lat: riderPosition?.lat ?? null,
            lng: riderPosition?.lng ?? null,
          }
        : null,
      stops: d.stops.map((s) => ({
        dropoff_lat: s.dropoff_lat,
        dropoff_lng: s.dropoff_lng,
        status: s.status,
        eta_min: estimate.stopsMin[s.position] ?? null,
      })),
      events: d.events.map((e) => ({ status: e.status, lat: e.lat, lng: e.lng, created_at: isoZ(e.created_at) })),
    };
    views.set(id, d.version, JSON.stringify(view));
    res.json(view);
  });
  return router;
}
