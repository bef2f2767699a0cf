import * as offers from '../db/offers';
import type { LatLng } from '../domain/geo';
import type { ActivityDeps } from './deps';

/**
 * Offers of a job to riders. Dispatch knows nothing of partners: it sees a job at a pickup point,
 * so the consumer channel can share it.
 */
export function createDispatchActivities({ orm, settings }: ActivityDeps) {
  return {
    /**
     * Offers the job to the nearest online, free, live riders within `radiusKm` of `pickup` it was
     * not offered to yet, whose app sent a position within RIDER_FRESH_SECONDS.
     */
    async offerToNearbyRiders(input: { deliveryId: string; pickup: LatLng; radiusKm: number; expiresAt: string; exceptRiderId?: string | null }): Promise<number> {
      return offers.offerToRidersNear(orm.em, { ...input, freshSeconds: settings.riderFreshSeconds });
    },
  };
}
