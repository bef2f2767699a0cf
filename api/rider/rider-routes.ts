import { Router, type Request, type Response } from 'express';
import * as deliveries from '../../db/deliveries';
import * as offers from '../../db/offers';
import * as riders from '../../db/riders';
import type { JobForStep, RiderPosition } from '../../db/riders';
import { FINAL_DROP, type DeliveryStatus } from '../../domain/lifecycle';
import { acceptRefusal, noLongerAvailable, notYourJob, refusalFor, riderBusy, type Step } from '../../domain/steps';
import { distanceKm } from '../../domain/pricing';
import { isoZ } from '../../domain/delivery-view';
import { acceptUpdate, completeStopUpdate, deliverUpdate, departUpdate, pickupUpdate } from '../../workflows/messages';
import type { AppDeps } from '../deps';
import { ApiError, requireUuid } from '../errors';
import { riderOf } from '../middleware/rider-auth';
import { refusalError, throwIfRefused } from '../refusals';
import { createJobView } from './job-view';
import { sendDeliveryUpdate } from '../temporal/delivery-updates';
import { proofBrought, readHandoverProof } from './handover-proof';
import { PositionPings } from './position-pings';

/** The rider app's API (DESIGN section 10). The rider token is checked in app.ts, before the body is read. */
export function createRiderRouter(deps: AppDeps): Router {
  const { orm } = deps;
  const router = Router();

  const jobView = createJobView(deps);

  const statusOf = (deliveryId: string) => () => deliveries.statusOf(orm.em.fork(), deliveryId);

  /**
   * A job this rider holds, or was offered and nobody holds yet (any other delivery is unknown to
   * them), and where the rider last was, in one round trip: both are on the path from the rider's
   * tap to the partner's webhook. The step is refused here on the read model, by the rules the
   * workflow applies, before a photo is stored or a round trip spent.
   */
  async function jobForStep(req: Request, res: Response, step: (job: JobForStep) => Step): Promise<{ delivery: JobForStep; position: RiderPosition }> {
    const id = requireUuid(req.params.id as string, 'Unknown delivery');
    const { job, position } = await riders.jobForStep(orm.em, id, riderOf(res).riderId);
    if (!job) throw ApiError.notFound(notYourJob('pending').message);
    throwIfRefused(refusalFor(job, step(job)));
    return { delivery: job, position };
  }

  router.put('/rider/availability', async (req, res) => {
    const { online } = req.body as { online: boolean };
    await riders.setOnline(orm.em.fork(), riderOf(res).riderId, online);
    res.json({ online });
  });

  const pings = new PositionPings(orm);
  router.post('/rider/location', async (req, res) => {
    const { lat, lng } = req.body as { lat: number; lng: number };
    await pings.record(riderOf(res).riderId, { lat, lng });
    res.status(204).end();
  });

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

  router.get('/rider/deliveries/current', async (_req, res) => {
    const { riderId } = riderOf(res);
    const activeDeliveryId = await riders.activeDeliveryId(orm.em.fork(), riderId);
    if (!activeDeliveryId) throw ApiError.notFound('No active job');
    res.json(await jobView(activeDeliveryId, riderId));
  });

  router.post('/rider/deliveries/:id/accept', async (req, res) => {
    const { riderId } = riderOf(res);
    const id = requireUuid(req.params.id, 'Unknown delivery');
    // The offer, the job's status, whether the rider is busy and where they are, in one round trip:
    // accepts race each other, so the time before the workflow decides is kept short.
    const offer = await offers.toAccept(orm.em, id, riderId);
    if (!offer) throw ApiError.notFound('This job was not offered to you');
    const status = offer.status as DeliveryStatus;
    throwIfRefused(acceptRefusal(status));
    if (offer.active_delivery_id && offer.active_delivery_id !== id) throw refusalError(riderBusy(status));
    const position = { lat: offer.lat, lng: offer.lng };
    // A job whose workflow ended after the read above found it pending (cancelled or expired
    // meanwhile) is no longer available, like one read so: 409.
    await sendDeliveryUpdate(
      deps,
      id,
      (h) => h.executeUpdate(acceptUpdate, { args: [{ riderId, ...position }] }),
      statusOf(id),
      (ended) => refusalError(noLongerAvailable(ended as DeliveryStatus)),
    );
    res.json(await jobView(id, riderId));
  });

  router.post('/rider/deliveries/:id/pickup', async (req, res) => {
    const { riderId } = riderOf(res);
    const { delivery, position } = await jobForStep(req, res, () => ({ kind: 'pickup', riderId }));
    await sendDeliveryUpdate(deps, delivery.id, (h) => h.executeUpdate(pickupUpdate, { args: [{ riderId, ...position }] }), statusOf(delivery.id));
    res.json(await jobView(delivery.id, riderId));
  });

  router.post('/rider/deliveries/:id/depart', async (req, res) => {
    const { riderId } = riderOf(res);
    const { delivery, position } = await jobForStep(req, res, () => ({ kind: 'depart', riderId }));
    await sendDeliveryUpdate(deps, delivery.id, (h) => h.executeUpdate(departUpdate, { args: [{ riderId, ...position }] }), statusOf(delivery.id));
    res.json(await jobView(delivery.id, riderId));
  });

  router.post('/rider/deliveries/:id/stops/:index/complete', async (req, res) => {
    const { riderId } = riderOf(res);
    const index = Number(req.params.index);
    const { delivery, position } = await jobForStep(req, res, (job) => ({
      kind: 'complete_stop',
      riderId,
      index,
      proof: proofBrought(req, job.verificationMethod),
    }));
    const proof = await readHandoverProof(deps, req, delivery, index);
    await sendDeliveryUpdate(
      deps,
      delivery.id,
      (h) => h.executeUpdate(completeStopUpdate, { args: [{ riderId, ...position, index, proof }] }),
      statusOf(delivery.id),
    );
    res.json(await jobView(delivery.id, riderId));
  });

  router.post('/rider/deliveries/:id/deliver', async (req, res) => {
    const { riderId } = riderOf(res);
    const { delivery, position } = await jobForStep(req, res, (job) => ({ kind: 'deliver', riderId, proof: proofBrought(req, job.verificationMethod) }));
    const proof = await readHandoverProof(deps, req, delivery, FINAL_DROP);
    await sendDeliveryUpdate(
      deps,
      delivery.id,
      (h) => h.executeUpdate(deliverUpdate, { args: [{ riderId, ...position, proof }] }),
      statusOf(delivery.id),
    );
    res.json(await jobView(delivery.id, riderId));
  });

  return router;
}
