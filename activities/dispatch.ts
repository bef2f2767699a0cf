import { isUniqueViolation } from '../db/errors';
import { poolQuery, type PoolQuery } from '../db/pool-query';
import type { LatLng } from '../domain/geo';
import type { ActivityDeps } from './deps';

/**
 * Holds the rider to the job unless they hold another, in the caller's transaction; true when
 * they now hold this one. The unique `active_delivery_id` makes the database refuse a second job
 * even if two accepts race on two deliveries (the caller maps that refusal to false).
 */
const CLAIM = {
  name: 'rider-claim',
  text: `update riders set active_delivery_id = $1
         where id = $2 and (active_delivery_id is null or active_delivery_id = $1) returning id`,
};

export async function claimRiderIn(tx: PoolQuery, deliveryId: string, riderId: string): Promise<boolean> {
  return (await tx.query({ ...CLAIM, values: [deliveryId, riderId] })).rows.length === 1;
}

/**
 * Offers a job to the riders near its pickup: a bounding box first (index-friendly), then the
 * exact great-circle distance. Every live booking runs it, so it is named and prepared. A round
 * that runs as the job is taken or cancelled offers nothing new and reopens no withdrawn offer
 * (see WRITE_CHANGE in transitions.ts).
 */
const OFFER = {
  name: 'offer-to-nearby-riders',
  text: `
    insert into rider_offers (delivery_id, rider_id, expires_at)
    select $1, r.id, $2::timestamptz from riders r
    where r.online and not r.is_robo and r.active_delivery_id is null
      and r.lat between $3 and $4 and r.lng between $5 and $6
      and 6371.0088 * 2 * asin(sqrt(power(sin(radians(r.lat - $7) / 2), 2)
          + cos(radians($7)) * cos(radians(r.lat)) * power(sin(radians(r.lng - $8) / 2), 2))) <= $9
      and exists (select 1 from deliveries d where d.id = $1 and d.status = 'pending')
    on conflict (delivery_id, rider_id) do update set expires_at = excluded.expires_at
      where rider_offers.expires_at > now()`,
};

/**
 * Offers and rider claims. Dispatch knows nothing of partners: it sees a job at a pickup point,
 * so the consumer channel can share it.
 */
export function createDispatchActivities({ orm }: ActivityDeps) {
  return {
    /** Offers the job to online, free, live riders within `radiusKm` of the pickup. */
    async offerToNearbyRiders(input: { deliveryId: string; pickup: LatLng; radiusKm: number; expiresAt: string }): Promise<number> {
      const { pickup, radiusKm } = input;
      const dLat = radiusKm / 111.32;
      const dLng = radiusKm / (111.32 * Math.max(0.1, Math.cos((pickup.lat * Math.PI) / 180)));
      const { rowCount } = await poolQuery(orm.em).query({
        ...OFFER,
        values: [
          input.deliveryId,
          input.expiresAt,
          pickup.lat - dLat,
          pickup.lat + dLat,
          pickup.lng - dLng,
          pickup.lng + dLng,
          pickup.lat,
          pickup.lng,
          radiusKm,
        ],
      });
      return rowCount ?? 0;
    },

    /**
     * Holds the rider to this job (see claimRiderIn). This and releaseRider serve accepts on the
     * path from before `accept-in-one-step` (a workflow replayed mid-accept takes it); remove
     * them with the patch.
     */
    async claimRider({ deliveryId, riderId }: { deliveryId: string; riderId: string }): Promise<boolean> {
      try {
        return await claimRiderIn(poolQuery(orm.em), deliveryId, riderId);
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    async releaseRider({ deliveryId, riderId }: { deliveryId: string; riderId: string }): Promise<void> {
      await orm.em.fork().execute('update riders set active_delivery_id = null where id = ? and active_delivery_id = ?', [
        riderId,
        deliveryId,
      ]);
    },
  };
}
