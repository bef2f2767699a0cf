import type { EntityManager } from '@mikro-orm/postgresql';
import type { LatLng } from '../domain/geo';
import { poolTransaction } from './pool-query';

/** The rider named is not free to hold the job: the whole reassignment is rolled back. */
class RiderNotFree extends Error {}

/**
 * A job handed from one rider to another, or taken from its rider to be offered again, in one
 * transaction: the former rider freed (first: a job is held by one rider at a time, and the
 * database's unique `active_delivery_id` says so), the new rider held to it (refused when not
 * free), the delivery's rider changed, its open offers withdrawn and the former rider's masked
 * numbers closed. Its status stays; the workflow decided all of this and only it calls here.
 * Written so a retry after a lost commit finds the same outcome.
 */
export async function reassignJob(
  em: EntityManager,
  input: { deliveryId: string; fromRiderId: string | null; toRiderId: string | null },
): Promise<{ claimed: boolean; formerPosition: LatLng | null }> {
  const { deliveryId, fromRiderId, toRiderId } = input;
  try {
    return await poolTransaction(em, async (tx) => {
      let formerPosition: LatLng | null = null;
      if (fromRiderId) {
        const { rows } = await tx.query<{ lat: number | null; lng: number | null }>(
          'update riders set active_delivery_id = null where id = $1 and active_delivery_id = $2 returning lat, lng',
          [fromRiderId, deliveryId],
        );
        if (rows[0]?.lat != null && rows[0]?.lng != null) formerPosition = { lat: rows[0].lat, lng: rows[0].lng };
        await tx.query('update call_sessions set closed_at = now() where delivery_id = $1 and rider_id = $2 and closed_at is null', [deliveryId, fromRiderId]);
      }
      if (toRiderId !== null) {
        const claim = await tx.query(
          `update riders set active_delivery_id = $1
           where id = $2 and not is_robo and token_hash is not null and (active_delivery_id is null or active_delivery_id = $1)
           returning id`,
          [deliveryId, toRiderId],
        );
        if (claim.rowCount !== 1) throw new RiderNotFree();
      }
      await tx.query('update deliveries set rider_id = $2, attention_since = null where id = $1', [deliveryId, toRiderId]);
      await tx.query('update rider_offers set expires_at = now() where delivery_id = $1 and expires_at > now()', [deliveryId]);
      return { claimed: true, formerPosition };
    });
  } catch (error) {
    if (error instanceof RiderNotFree) return { claimed: false, formerPosition: null };
    throw error;
  }
}
