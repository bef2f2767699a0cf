import { Router, type Request, type Response } from 'express';
import { DeliverySchema, DeliveryStopSchema } from '../../db/entities';
import { FINAL_DROP } from '../../activities/booking';
import { distanceKm } from '../../domain/pricing';
import { isoZ } from '../../domain/delivery-view';
import { acceptUpdate, completeStopUpdate, deliverUpdate, departUpdate, pickupUpdate } from '../../workflows/messages';
import type { AppDeps } from '../deps';
import { ApiError, requireUuid } from '../errors';
import { riderAuth, riderOf } from '../middleware/rider-auth';
import { sendDeliveryUpdate } from '../services/delivery-commands';
import { checkHandoverProof } from '../services/handover';

/** What the rider routes decide on about a job the rider holds. */
interface HeldJob {
  id: string;
  status: string;
  verificationMethod: string;
}

/** The rider app's view of a job (DESIGN section 10). */
interface RiderJobView {
  delivery_id: string;
  reference: string;
  status: string;
  stops: Record<string, unknown>[];
  [field: string]: unknown;
}

/** Postgres builds the rider's job view, stops in visiting order, so it costs one round trip. */
const JOB_VIEW_SQL = `
  select json_build_object(
    'delivery_id', d.id, 'reference', d.reference, 'status', d.status,
    'pickup_address', d.pickup_address, 'pickup_lat', d.pickup_lat, 'pickup_lng', d.pickup_lng,
    'dropoff_address', d.dropoff_address, 'dropoff_lat', d.dropoff_lat, 'dropoff_lng', d.dropoff_lng,
    'recipient_name', d.recipient_name, 'recipient_phone', d.recipient_phone,
    'package_size', d.package_size, 'package_description', d.package_description,
    'verification_method', d.verification_method,
    'stops', coalesce((
      select json_agg(json_build_object(
        'index', s.position, 'dropoff_address', s.dropoff_address, 'dropoff_lat', s.dropoff_lat,
        'dropoff_lng', s.dropoff_lng, 'recipient_name', s.recipient_name, 'recipient_phone', s.recipient_phone,
        'package_size', s.package_size, 'package_description', s.package_description, 'status', s.status
      ) order by s.position)
      from delivery_stops s where s.delivery_id = d.id
    ), '[]'::json)
  ) as job
  from deliveries d where d.id = ?`;

/** The rider app's API (DESIGN section 10). */
export function createRiderRouter(deps: AppDeps): Router {
  const { orm, temporal } = deps;
  const router = Router();
  router.use('/rider', riderAuth(orm));

  /** The job as the rider app shows it: the delivery and its additional stops, in one query. */
  async function jobView(deliveryId: string): Promise<RiderJobView> {
    const [row] = await orm.em.fork().execute<{ job: RiderJobView }[]>(JOB_VIEW_SQL, [deliveryId]);
    if (!row) throw ApiError.notFound('Unknown delivery');
    return row.job;
  }

  const statusOf = (deliveryId: string) => async () =>
    (await orm.em.fork().findOne(DeliverySchema, { id: deliveryId }))?.status ?? null;

  /**
   * A job this rider holds (any other delivery is unknown to them) and where the rider last was,
   * in one round trip: both are on the path from the rider's tap to the partner's webhook.
   */
  async function heldJob(req: Request, res: Response): Promise<{ delivery: HeldJob; position: { lat: number | null; lng: number | null } }> {
    const { riderId } = riderOf(res);
    const id = requireUuid(req.params.id as string, 'Unknown delivery');
    const [row] = await orm.em.fork().execute<(HeldJob & { rider_id: string | null; lat: number | null; lng: number | null })[]>(
      `select d.id, d.rider_id, d.status, d.verification_method as "verificationMethod", r.lat, r.lng
       from riders r left join deliveries d on d.id = ? where r.id = ?`,
      [id, riderId],
    );
    if (!row?.id || row.rider_id !== riderId) throw ApiError.notFound('This delivery is not yours');
    return { delivery: { id: row.id, status: row.status, verificationMethod: row.verificationMethod }, position: { lat: row.lat, lng: row.lng } };
  }

  function requireStatus(delivery: HeldJob, expected: string, what: string): void {
    if (delivery.status !== expected) {
      throw ApiError.badRequest(`Cannot ${what} while the delivery is ${delivery.status}`, { status: delivery.status });
    }
  }

  router.put('/rider/availability', async (req, res) => {
    const { online } = req.body as { online: boolean };
    await orm.em.fork().execute('update riders set online = ? where id = ?', [online, riderOf(res).riderId]);
    res.json({ online });
  });

  router.post('/rider/location', async (req, res) => {
    const { lat, lng } = req.body as { lat: number; lng: number };
    // Pings go to Postgres only; they never enter workflow history.
    await orm.em.fork().execute('update riders set lat = ?, lng = ?, located_at = now() where id = ?', [lat, lng, riderOf(res).riderId]);
    res.status(204).end();
  });

  router.get('/rider/offers', async (_req, res) => {
    const rows = await orm.em.fork().execute<
      {
        id: string;
        pickup_address: string;
        pickup_lat: number;
        pickup_lng: number;
        dropoff_address: string;
        package_size: string;
        distance_m: number;
        stops_count: string;
        expires_at: Date;
      }[]
    >(
      `select d.id, d.pickup_address, d.pickup_lat, d.pickup_lng, d.dropoff_address, d.package_size, d.distance_m,
         (select count(*) from delivery_stops s where s.delivery_id = d.id) as stops_count, o.expires_at
       from rider_offers o join deliveries d on d.id = o.delivery_id
       where o.rider_id = ? and o.expires_at > now() and d.status = 'pending'
       order by o.created_at desc limit 50`,
      [riderOf(res).riderId],
    );
    res.json(
      rows.map((r) => ({
        delivery_id: r.id,
        pickup_address: r.pickup_address,
        pickup_lat: r.pickup_lat,
        pickup_lng: r.pickup_lng,
        dropoff_address: r.dropoff_address,
        stops_count: Number(r.stops_count),
        package_size: r.package_size,
        distance_km: distanceKm(r.distance_m),
        expires_at: isoZ(r.expires_at),
      })),
    );
  });

  router.get('/rider/deliveries/current', async (_req, res) => {
    const [row] = await orm.em
      .fork()
      .execute<{ active_delivery_id: string | null }[]>('select active_delivery_id from riders where id = ?', [riderOf(res).riderId]);
    if (!row?.active_delivery_id) throw ApiError.notFound('No active job');
    res.json(await jobView(row.active_delivery_id));
  });

  router.post('/rider/deliveries/:id/accept', async (req, res) => {
    const { riderId } = riderOf(res);
    const id = requireUuid(req.params.id, 'Unknown delivery');
    // The offer, the job's status, and whether and where the rider is, in one round trip: accepts
    // race each other, so the time before the workflow decides is kept short.
    const [offer] = await orm.em.fork().execute<
      { status: string; active_delivery_id: string | null; lat: number | null; lng: number | null }[]
    >(
      `select d.status, r.active_delivery_id, r.lat, r.lng
       from rider_offers o join deliveries d on d.id = o.delivery_id join riders r on r.id = o.rider_id
       where o.delivery_id = ? and o.rider_id = ?`,
      [id, riderId],
    );
    if (!offer) throw ApiError.notFound('This job was not offered to you');
    if (offer.status !== 'pending') throw ApiError.conflict('This job is no longer available', { status: offer.status });
    if (offer.active_delivery_id && offer.active_delivery_id !== id) throw ApiError.conflict('Finish your current job first');
    const position = { lat: offer.lat, lng: offer.lng };
    await sendDeliveryUpdate(temporal, id, (h) => h.executeUpdate(acceptUpdate, { args: [{ riderId, ...position }] }), statusOf(id));
    res.json(await jobView(id));
  });

  router.post('/rider/deliveries/:id/pickup', async (req, res) => {
    const { delivery, position } = await heldJob(req, res);
    requireStatus(delivery, 'accepted', 'pick up');
    const { riderId } = riderOf(res);
    await sendDeliveryUpdate(temporal, delivery.id, (h) => h.executeUpdate(pickupUpdate, { args: [{ riderId, ...position }] }), statusOf(delivery.id));
    res.json(await jobView(delivery.id));
  });

  router.post('/rider/deliveries/:id/depart', async (req, res) => {
    const { delivery, position } = await heldJob(req, res);
    requireStatus(delivery, 'picked_up', 'depart');
    const { riderId } = riderOf(res);
    await sendDeliveryUpdate(temporal, delivery.id, (h) => h.executeUpdate(departUpdate, { args: [{ riderId, ...position }] }), statusOf(delivery.id));
    res.json(await jobView(delivery.id));
  });

  router.post('/rider/deliveries/:id/stops/:index/complete', async (req, res) => {
    const { delivery, position } = await heldJob(req, res);
    requireStatus(delivery, 'in_transit', 'complete a stop');
    const index = Number(req.params.index);
    const stop = await orm.em.fork().findOne(DeliveryStopSchema, { deliveryId: delivery.id, position: index });
    if (!stop) throw ApiError.notFound('This delivery has no such stop');
    if (stop.status === 'delivered') throw ApiError.badRequest('This stop is already handed over', { status: delivery.status });
    const { riderId } = riderOf(res);
    const proof = await checkHandoverProof(deps, req, delivery, index);
    await sendDeliveryUpdate(
      temporal,
      delivery.id,
      (h) => h.executeUpdate(completeStopUpdate, { args: [{ riderId, ...position, index, proof }] }),
      statusOf(delivery.id),
    );
    res.json(await jobView(delivery.id));
  });

  router.post('/rider/deliveries/:id/deliver', async (req, res) => {
    const { delivery, position } = await heldJob(req, res);
    requireStatus(delivery, 'in_transit', 'deliver');
    const pending = await orm.em.fork().count(DeliveryStopSchema, { deliveryId: delivery.id, status: 'pending' });
    if (pending > 0) throw ApiError.badRequest('Every additional stop must be handed over first', { status: delivery.status });
    const { riderId } = riderOf(res);
    const proof = await checkHandoverProof(deps, req, delivery, FINAL_DROP);
    await sendDeliveryUpdate(
      temporal,
      delivery.id,
      (h) => h.executeUpdate(deliverUpdate, { args: [{ riderId, ...position, proof }] }),
      statusOf(delivery.id),
    );
    res.json(await jobView(delivery.id));
  });

  return router;
}
