import { Router } from 'express';
import * as deliveries from '../../db/deliveries';
import * as offers from '../../db/offers';
import { isoZ } from '../../domain/delivery-view';
import type { DeliveryStatus } from '../../domain/lifecycle';
import { distanceKm } from '../../domain/pricing';
import { acceptRefusal, noLongerAvailable, riderBusy } from '../../domain/steps';
import { acceptUpdate } from '../../workflows/messages';
import type { AppDeps } from '../app-deps';
import { ApiError, requireUuid } from '../api-error';
import { riderOf } from '../middleware/rider-auth';
import { refusalError, throwIfRefused } from '../refusals';
import { ServerTiming } from '../server-timing';
import { sendDeliveryUpdate } from '../temporal/delivery-updates';
import { answerStep, createJobView } from './job-view';

/** The jobs offered to a rider, and the accept: first rider wins, decided by the delivery's workflow. */
export function createRiderOfferRouter(deps: AppDeps): Router {
  const { orm } = deps;
  const router = Router();
  const views = createJobView(deps);
  const statusOf = (deliveryId: string) => () => deliveries.statusOf(orm.em.fork(), deliveryId);

  router.get('/rider/offers', async (_req, res) => {
    const rows = await offers.openFor(orm.em, riderOf(res).riderId);
    res.json(
      rows.map((r) => ({
        delivery_id: r.id,
        pickup_address: r.pickup_address,
        pickup_lat: r.pickup_lat,
        pickup_lng: r.pickup_lng,
        dropoff_address: r.dropoff_address,
        dropoff_lat: r.dropoff_lat,
        dropoff_lng: r.dropoff_lng,
        stops_count: Number(r.stops_count),
        // What the rider app shows before a rider takes the job: each drop in order and the notes.
        stops: r.stops,
        package_size: r.package_size,
        package_description: r.package_description,
        distance_km: distanceKm(r.distance_m),
        expires_at: isoZ(r.expires_at),
      })),
    );
  });

  router.post('/rider/deliveries/:id/accept', async (req, res) => {
    const { riderId } = riderOf(res);
    const id = requireUuid(req.params.id, 'Unknown delivery');
    // The offer, the job's status, whether the rider is busy and where they are, in one round trip:
    // accepts race each other, so the time before the workflow decides is kept short.
    const timing = new ServerTiming();
    const offer = await timing.measure('read', () => offers.toAccept(orm.em, id, riderId));
    if (!offer) throw ApiError.notFound('This job was not offered to you');
    const status = offer.status as DeliveryStatus;
    throwIfRefused(acceptRefusal({ status, riderId: offer.rider_id }));
    if (offer.active_delivery_id && offer.active_delivery_id !== id) throw refusalError(riderBusy(status));
    const position = { lat: offer.lat, lng: offer.lng };
    // A job whose workflow ended after the read above found it pending (cancelled or expired
    // meanwhile) is no longer available, like one read so: 409.
    await answerStep(res, timing, views, { read: offer.view, deliveryId: id, riderId, callsMeanwhile: false }, () =>
      sendDeliveryUpdate(
        deps,
        id,
        (h) => h.executeUpdate(acceptUpdate, { args: [{ riderId, ...position }] }),
        statusOf(id),
        (ended) => refusalError(noLongerAvailable(ended as DeliveryStatus)),
      ),
    );
  });

  return router;
}
