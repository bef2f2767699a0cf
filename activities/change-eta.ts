import type { DeliveryParts } from '../domain/delivery-view';
import { etaFigures, etaRoute, isLive, type EtaFigures, type EtaStop } from '../domain/eta';
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
 * not answer in time. Worked out in the activity from the parts read for the change
 * (`before`, with the change's rider), so the callback body that carries it stays out of
 * workflow code.
 */
export async function etaAtChange(
  { eta, logger }: Pick<ActivityDeps, 'eta' | 'logger'>,
  change: { deliveryId: string; status: DeliveryStatus; riderId: string | null; lat: number | null; lng: number | null },
  before: DeliveryParts,
): Promise<EtaFigures | null> {
  if (!isLive(change.status)) return null;
  const { delivery: d, rider: known } = before;
  const trip = { status: change.status, pickupLat: d.pickupLat, pickupLng: d.pickupLng, dropoffLat: d.dropoffLat, dropoffLng: d.dropoffLng };
  const stops: EtaStop[] = [...before.stops]
    .sort((a, b) => a.position - b.position)
    .map((s) => ({ position: s.position, status: s.status, dropoffLat: s.dropoffLat, dropoffLng: s.dropoffLng }));
  // Where the change happened, when the step said so; else where the rider last reported.
  const lastReported = known && known.lat != null && known.lng != null ? { lat: known.lat, lng: known.lng } : null;
  const rider = change.lat !== null && change.lng !== null ? { lat: change.lat, lng: change.lng } : lastReported;
  const points = etaRoute(trip, stops, rider);
  if (points === null) return null;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ETA_WAIT_MS} ms`)), ETA_WAIT_MS);
    });
    const { legSeconds } = await Promise.race([eta.legs(points), timeout]);
    return etaFigures(trip, stops, legSeconds, new Date());
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
