import { Router, type NextFunction, type Request, type Response } from 'express';
import { loadDelivery } from '../../db/delivery-reads';
import { isoZ } from '../../domain/delivery-view';
import { deliveryReference } from '../../domain/reference';
import { firstNameAndInitial } from '../../domain/redaction';
import type { AppDeps } from '../deps';
import { ApiError, requireUuid } from '../errors';
import { etaFor } from '../services/eta';

/** The public view is the one surface any web page may read: any origin, no credentials. */
export function publicCors(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', req.get('access-control-request-headers') ?? 'Content-Type');
  res.setHeader('Access-Control-Max-Age', '600');
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
export function createTrackingRouter({ orm, eta, settings }: AppDeps): Router {
  const router = Router();
  router.get('/track/:id/public', async (req, res) => {
    const id = requireUuid(req.params.id, 'Unknown delivery');
    const parts = await loadDelivery(orm.em.fork(), id);
    if (!parts) throw ApiError.notFound('Unknown delivery');
    const { delivery: d, stops, events, rider } = parts;
    const riderPosition = rider && rider.lat !== null && rider.lat !== undefined && rider.lng !== null && rider.lng !== undefined
      ? { lat: Number(rider.lat), lng: Number(rider.lng) }
      : null;
    const estimate = await etaFor(orm, eta, d, stops, riderPosition);
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      reference: deliveryReference(d.id, settings.referencePrefix),
      status: d.status,
      package_size: d.packageSize,
      pickup_address: d.pickupAddress,
      pickup_lat: d.pickupLat,
      pickup_lng: d.pickupLng,
      dropoff_address: d.dropoffAddress,
      dropoff_lat: d.dropoffLat,
      dropoff_lng: d.dropoffLng,
      recipient_name: firstNameAndInitial(d.recipientName),
      eta_min: estimate.finalMin,
      rider: rider
        ? {
            name: firstNameAndInitial(rider.name),
            vehicle: rider.vehicle ?? null,
            rating: rider.rating === null || rider.rating === undefined ? null : Number(rider.rating),
            lat: riderPosition?.lat ?? null,
            lng: riderPosition?.lng ?? null,
          }
        : null,
      stops: [...stops]
        .sort((a, b) => a.position - b.position)
        .map((s) => ({
          dropoff_lat: s.dropoffLat,
          dropoff_lng: s.dropoffLng,
          status: s.status,
          eta_min: estimate.stopsMin[s.position] ?? null,
        })),
      events: events.map((e) => ({ status: e.status, lat: e.lat ?? null, lng: e.lng ?? null, created_at: isoZ(e.createdAt) })),
    });
  });
  return router;
}
