import * as deliveryEta from '../db/delivery-eta';
import { etaFigures, etaRoute, isLive, type EtaFigures } from '../domain/eta';
import type { DeliveryStatus } from '../domain/lifecycle';
import type { ActivityDeps } from './deps';

/**
 * How long a status change waits for the ETA provider. The change is a rider's step, waiting on
 * its answer; past this, the change is recorded without a fresh figure (the next read refreshes it).
 */
const ETA_WAIT_MS = 2_000;

/**
 * The ETA at a status change into a live status, from where the change happened (else where the
 * rider, `riderId` or the delivery's own, last was) through what is left of the trip at the new
 * status; null when there is none to give (a final status, no known position) or the provider did
 * not answer in time. Worked out in the activity, so the callback body that carries it stays out
 * of workflow code.
 */
export async function etaAtChange(
  { orm, eta, logger }: Pick<ActivityDeps, 'orm' | 'eta' | 'logger'>,
  change: { deliveryId: string; status: DeliveryStatus; riderId: string | null; lat: number | null; lng: number | null },
): Promise<EtaFigures | null> {
  if (!isLive(change.status)) return null;
  const found = await deliveryEta.tripAt(orm.em.fork(), change.deliveryId, change.riderId);
  if (!found) return null;
  const trip = { ...found.trip, status: change.status };
  // Where the change happened, when the step said so; else where the rider last reported.
  const rider = change.lat !== null && change.lng !== null ? { lat: change.lat, lng: change.lng } : found.rider;
  const points = etaRoute(trip, found.stops, rider);
  if (points === null) return null;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ETA_WAIT_MS} ms`)), ETA_WAIT_MS);
    });
    const { legSeconds } = await Promise.race([eta.legs(points), timeout]);
    return etaFigures(trip, found.stops, legSeconds, new Date());
  } catch (error) {
    logger.warn('ETA provider failed at a status change; recorded without a fresh figure', {
      deliveryId: change.deliveryId,
      status: change.status,
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  } finally {
    clearTimeout(timer);
  }
}
