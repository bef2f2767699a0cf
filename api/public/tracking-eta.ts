import type { MikroORM } from '@mikro-orm/postgresql';
import * as deliveryEta from '../../db/delivery-eta';
import type { LatLng } from '../../domain/geo';
import { ACTIVE_FOR_RIDER } from '../../domain/lifecycle';
import type { EtaProvider } from '../../integrations/routing/provider';

/** Contract limit: the ETA is recomputed at most every 20 seconds per delivery. */
export const ETA_REFRESH_SECONDS = 20;

/** The parts of a delivery row the ETA needs, with the cached figure. */
export interface EtaTrip {
  id: string;
  status: string;
  pickupLat: number;
  pickupLng: number;
  dropoffLat: number;
  dropoffLng: number;
  etaMin: number | null;
  etaLegsMin: (number | null)[] | null;
  /** The cached figure is younger than ETA_REFRESH_SECONDS, by the database clock. */
  etaFresh: boolean;
}

export interface EtaStop {
  position: number;
  status: string;
  dropoffLat: number;
  dropoffLng: number;
}

export interface Eta {
  /** Minutes to the final drop. */
  finalMin: number | null;
  /** Cumulative minutes to each additional stop, by position (null once handed over). */
  stopsMin: (number | null)[];
}

/** Statuses in which a rider is on the trip, so minutes to the drop mean something. */
const LIVE: readonly string[] = ACTIVE_FOR_RIDER;

/** Told when the provider fails; the last figure is served until the next refresh is due. */
export type EtaErrorListener = (error: unknown) => void;

/**
 * Traffic-aware ETA from the rider's live position through the remaining stops to the final
 * drop. The value is cached on the delivery row, so every API process shares it; whichever
 * process first finds it 20 s old claims the refresh with a conditional UPDATE, and everyone
 * else reads the cached figure meanwhile.
 */
export async function etaFor(
  orm: MikroORM,
  provider: EtaProvider,
  trip: EtaTrip,
  stops: EtaStop[],
  rider: LatLng | null,
  onError?: EtaErrorListener,
): Promise<Eta> {
  if (!LIVE.includes(trip.status) || rider === null) return { finalMin: null, stopsMin: stops.map(() => null) };
  if (trip.etaFresh) return fromCache(trip.etaMin, trip.etaLegsMin, stops);

  const em = orm.em.fork();
  if (!(await deliveryEta.claimRefresh(em, trip.id, ETA_REFRESH_SECONDS))) return readCache(orm, trip.id, stops);

  const pending = [...stops].sort((a, b) => a.position - b.position).filter((s) => s.status === 'pending');
  const points: LatLng[] = [rider];
  if (trip.status === 'accepted') points.push({ lat: trip.pickupLat, lng: trip.pickupLng });
  points.push(...pending.map((s) => ({ lat: s.dropoffLat, lng: s.dropoffLng })));
  points.push({ lat: trip.dropoffLat, lng: trip.dropoffLng });

  let legSeconds: number[];
  try {
    ({ legSeconds } = await provider.legs(points));
  } catch (error) {
    // The claim stands: a failing provider is asked again in 20 s, not on every poll.
    onError?.(error);
    return readCache(orm, trip.id, stops);
  }
  const cumulative: number[] = [];
  let total = 0;
  for (const seconds of legSeconds) cumulative.push(Math.ceil((total += seconds) / 60));
  // Minutes to each remaining drop: skip the leg to the pickup when the parcel is not collected yet.
  const toDrops = trip.status === 'accepted' ? cumulative.slice(1) : cumulative;
  const legsByPosition: (number | null)[] = stops.map(() => null);
  pending.forEach((stop, i) => (legsByPosition[stop.position] = toDrops[i] ?? null));
  const finalMin = toDrops[toDrops.length - 1] ?? 0;
  await deliveryEta.save(em, trip.id, { finalMin, legsMin: legsByPosition });
  return { finalMin, stopsMin: legsByPosition };
}

/** Another process holds the refresh: serve the figure it (or an earlier one) stored. */
async function readCache(orm: MikroORM, deliveryId: string, stops: EtaStop[]): Promise<Eta> {
  const cached = await deliveryEta.read(orm.em.fork(), deliveryId);
  return fromCache(cached.finalMin, cached.legsMin, stops);
}

function fromCache(finalMin: number | null, legs: (number | null)[] | null, stops: EtaStop[]): Eta {
  const stopsMin: (number | null)[] = stops.map(() => null);
  for (const s of stops) stopsMin[s.position] = s.status === 'pending' ? (legs?.[s.position] ?? null) : null;
  return { finalMin, stopsMin };
}
