import type { LatLng } from './geo';
import { ACTIVE_FOR_RIDER, type DeliveryStatus } from './lifecycle';

/**
 * The rider's ETA, from the rider's position through what is left of the trip: the pickup while
 * the parcel is not collected yet, each additional stop still to hand over, then the final drop.
 * One computation gives the tracking view its minutes and the partner's record its timestamps.
 */

/** Contract limit: the ETA is recomputed at most every 20 seconds per delivery. */
export const ETA_REFRESH_SECONDS = 20;

/** The parts of a delivery the ETA is worked out from. */
export interface EtaTrip {
  status: string;
  pickupLat: number;
  pickupLng: number;
  dropoffLat: number;
  dropoffLng: number;
}

export interface EtaStop {
  position: number;
  status: string;
  dropoffLat: number;
  dropoffLng: number;
}

/** When the rider is expected at each point still ahead, as ISO 8601 timestamps. */
export interface EtaTimes {
  /** Null once the parcel is collected. */
  pickup: string | null;
  dropoff: string | null;
  /** By stop position; null for a stop already handed over. */
  stops: (string | null)[];
}

/** One computation's figures, as `delivery_etas` keeps them. */
export interface EtaFigures {
  /** Minutes to the final drop (the tracking view's `eta_min`). */
  finalMin: number;
  /** Cumulative minutes to each additional stop, by position (null once handed over). */
  legsMin: (number | null)[];
  times: EtaTimes;
}

/**
 * A delivery's ETA as last stored (by a status change or a read's refresh), and whether it is
 * younger than ETA_REFRESH_SECONDS by the database clock.
 */
export interface KeptEta {
  finalMin: number | null;
  legsMin: (number | null)[] | null;
  times: EtaTimes | null;
  fresh: boolean;
}

/** Whether a rider is on the trip, so a time to the drop means something. */
export function isLive(status: string): boolean {
  return (ACTIVE_FOR_RIDER as readonly string[]).includes(status);
}

function pendingStops(stops: readonly EtaStop[]): EtaStop[] {
  return [...stops].sort((a, b) => a.position - b.position).filter((s) => s.status === 'pending');
}

/**
 * The points to ask the ETA provider for, rider first; null when there is no ETA to give (the
 * trip is not live, or the rider's position is not known).
 */
export function etaRoute(trip: EtaTrip, stops: readonly EtaStop[], rider: LatLng | null): LatLng[] | null {
  if (!isLive(trip.status) || rider === null) return null;
  const points: LatLng[] = [rider];
  if (trip.status === 'accepted') points.push({ lat: trip.pickupLat, lng: trip.pickupLng });
  points.push(...pendingStops(stops).map((s) => ({ lat: s.dropoffLat, lng: s.dropoffLng })));
  points.push({ lat: trip.dropoffLat, lng: trip.dropoffLng });
  return points;
}

/**
 * The figures from the provider's leg durations for the points `etaRoute` gave, measured at `now`.
 * Minutes are rounded up (a rider "2 min away" is not there in one); timestamps are to the second.
 */
export function etaFigures(trip: EtaTrip, stops: readonly EtaStop[], legSeconds: readonly number[], now: Date): EtaFigures {
  const cumulativeSeconds: number[] = [];
  let total = 0;
  for (const seconds of legSeconds) cumulativeSeconds.push((total += seconds));
  const at = (seconds: number | undefined) => (seconds === undefined ? null : new Date(Math.round(now.getTime() / 1000 + seconds) * 1000).toISOString());
  const minutes = (seconds: number) => Math.ceil(seconds / 60);

  // The first leg reaches the pickup while the parcel is not collected yet; the rest reach drops.
  const collecting = trip.status === 'accepted';
  const toDrops = collecting ? cumulativeSeconds.slice(1) : cumulativeSeconds;
  const pending = pendingStops(stops);
  const legsMin: (number | null)[] = stops.map(() => null);
  const stopTimes: (string | null)[] = stops.map(() => null);
  pending.forEach((stop, i) => {
    const seconds = toDrops[i];
    legsMin[stop.position] = seconds === undefined ? null : minutes(seconds);
    stopTimes[stop.position] = at(seconds);
  });
  const finalSeconds = toDrops[toDrops.length - 1] ?? 0;
  return {
    finalMin: minutes(finalSeconds),
    legsMin,
    times: { pickup: collecting ? at(cumulativeSeconds[0]) : null, dropoff: at(finalSeconds), stops: stopTimes },
  };
}

/** What the partner's record shows of the kept times at `status`: none unless a rider is on the trip. */
export function recordEta(status: DeliveryStatus, times: EtaTimes | null | undefined) {
  const live = isLive(status) && times != null;
  return {
    pickupEta: live && status === 'accepted' ? times.pickup : null,
    dropoffEta: live ? times.dropoff : null,
    stopEta: (position: number, stopStatus: string) => (live && stopStatus === 'pending' ? (times.stops[position] ?? null) : null),
  };
}
