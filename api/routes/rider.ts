import { Router, type Request, type Response } from 'express';
import { DeliverySchema, DeliveryStopSchema, type Delivery } from '../../db/entities';
import { FINAL_DROP } from '../../activities/booking';
import { distanceKm } from '../../domain/pricing';
import { isoZ } from '../../domain/delivery-view';
import { acceptUpdate, completeStopUpdate, deliverUpdate, departUpdate, pickupUpdate } from '../../workflows/messages';
import type { AppDeps } from '../deps';
import { ApiError, requireUuid } from '../errors';
import { riderAuth, riderOf } from '../middleware/rider-auth';
import { sendDeliveryUpdate } from '../services/delivery-commands';
import { checkHandoverProof } from '../services/handover';

/** The rider app's API (DESIGN section 10). */
export function createRiderRouter(deps: AppDeps): Router {
  const { orm, temporal } = deps;
  const router = Router();
  router.use('/rider', riderAuth(orm));

  async function jobView(deliveryId: string) {
    const em = orm.em.fork();
    const d = await em.findOneOrFail(DeliverySchema, { id: deliveryId });
    const stops = await em.find(DeliveryStopSchema, { deliveryId }, { orderBy: { position: 'asc' } });
    return {
      delivery_id: d.id,
      reference: d.reference,
      status: d.status,
      pickup_address: d.pickupAddress,
      pickup_lat: d.pickupLat,
      pickup_lng: d.pickupLng,
      dropoff_address: d.dropoffAddress,
      dropoff_lat: d.dropoffLat,
      dropoff_lng: d.dropoffLng,
      recipient_name: d.recipientName,
      recipient_phone: d.recipientPhone,
      package_size: d.packageSize,
      package_description: d.packageDescription ?? null,
      verification_method: d.verificationMethod,
      stops: stops.map((s) => ({
        index: s.position,
        dropoff_address: s.dropoffAddress,
        dropoff_lat: s.dropoffLat,
        dropoff_lng: s.dropoffLng,
        recipient_name: s.recipientName,
        recipient_phone: s.recipientPhone,
        package_size: s.packageSize,
        package_description: s.packageDescription ?? null,
        status: s.status,
      })),
    };
  }

  async function riderPosition(riderId: string) {
    const [row] = await orm.em.fork().execute<{ lat: number | null; lng: number | null }[]>(
      'select lat, lng from riders where id = ?',
      [riderId],
    );
    return { lat: row?.lat ?? null, lng: row?.lng ?? null };
  }

  const statusOf = (deliveryId: string) => async () =>
    (await orm.em.fork().findOne(DeliverySchema, { id: deliveryId }))?.status ?? null;

  /**
   * A job this rider holds (any other delivery is unknown to them) and where the rider last was,
   * read side by side: both are on the path from the rider's tap to the partner's webhook.
   */
  async function heldJob(req: Request, res: Response): Promise<{ delivery: Delivery; position: { lat: number | null; lng: number | null } }> {
    const { riderId } = riderOf(res);
    const id = requireUuid(req.params.id as string, 'Unknown delivery');
    const [delivery, position] = await Promise.all([orm.em.fork().findOne(DeliverySchema, { id }), riderPosition(riderId)]);
    if (!delivery || delivery.riderId !== riderId) throw ApiError.notFound('This delivery is not yours');
    return { delivery, position };
  }

  function requireStatus(delivery: Delivery, expected: string, what: string): void {
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
