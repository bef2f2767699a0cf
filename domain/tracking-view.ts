import type { TrackingRow } from '../db/tracking';
import { isoZ, type LiveFields } from './delivery-view';
import { isLive, type EtaStop, type EtaTrip, type KeptEta } from './eta';
import { deliveryReference } from './reference';
import { firstNameAndInitial } from './redaction';

/**
 * The public tracking view: redacted (no phone number, fare or hand-over code; names are a first
 * name and an initial), built in two parts like the partner's record. The settled part changes
 * only with the delivery's version and is kept; where the rider is and the minutes ahead are
 * placed in it on every read.
 */

/** The view with null where the live fields go, and what placing them, and timing the trip, needs. */
export function settledTrackingView(d: Omit<TrackingRow, 'live' | 'version'>, referencePrefix: string) {
  const hasRider = d.rider_name !== null;
  const view = {
    reference: deliveryReference(d.id, referencePrefix),
    status: d.status,
    package_size: d.package_size,
    pickup_address: d.pickup_address,
    pickup_lat: d.pickup_lat,
    pickup_lng: d.pickup_lng,
    dropoff_address: d.dropoff_address,
    dropoff_lat: d.dropoff_lat,
    dropoff_lng: d.dropoff_lng,
    recipient_name: firstNameAndInitial(d.recipient_name),
    eta_min: null as number | null,
    rider: hasRider
      ? {
          name: firstNameAndInitial(d.rider_name as string),
          vehicle: d.rider_vehicle,
          rating: d.rider_rating === null ? null : Number(d.rider_rating),
          lat: null as number | null,
          lng: null as number | null,
        }
      : null,
    stops: d.stops.map((s) => ({ dropoff_lat: s.dropoff_lat, dropoff_lng: s.dropoff_lng, status: s.status, eta_min: null as number | null })),
    events: d.events.map((e) => ({ status: e.status, lat: e.lat, lng: e.lng, created_at: isoZ(e.created_at) })),
  };
  const trip: EtaTrip & { id: string } = {
    id: d.id,
    status: d.status,
    pickupLat: d.pickup_lat,
    pickupLng: d.pickup_lng,
    dropoffLat: d.dropoff_lat,
    dropoffLng: d.dropoff_lng,
  };
  const stops: EtaStop[] = d.stops.map((s) => ({ position: s.position, status: s.status, dropoffLat: s.dropoff_lat, dropoffLng: s.dropoff_lng }));
  return { view, trip, stops };
}
export type SettledTrackingView = ReturnType<typeof settledTrackingView>;

/** What the view shows of the live fields. */
export interface TrackingLive {
  position: { lat: number; lng: number } | null;
  /** Minutes to the final drop. */
  finalMin: number | null;
  /** Cumulative minutes to each additional stop, by position (null once handed over). */
  stopsMin: (number | null)[];
}

/**
 * The view's part of `live`, with the ETA figures `eta` (the kept ones, or a refresh's). The
 * rider's position is shown only while they are on this job: once it has ended, where they go
 * next is no business of whoever holds this delivery's id. No minutes without a position to time
 * them from.
 */
export function trackingLive({ view, trip, stops }: SettledTrackingView, live: LiveFields, eta: Pick<KeptEta, 'finalMin' | 'legsMin'> | null): TrackingLive {
  const onThisJob = view.rider !== null && isLive(trip.status);
  const position = onThisJob && live.position ? { lat: live.position.lat, lng: live.position.lng } : null;
  const stopsMin: (number | null)[] = stops.map(() => null);
  if (position === null) return { position, finalMin: null, stopsMin };
  for (const s of stops) stopsMin[s.position] = s.status === 'pending' ? (eta?.legsMin?.[s.position] ?? null) : null;
  return { position, finalMin: eta?.finalMin ?? null, stopsMin };
}

/**
 * The settled view with the live fields in their places. Spreading keeps every key where the
 * settled view has it, so the JSON is byte for byte what one built whole would be.
 */
export function withTrackingLive({ view, stops }: SettledTrackingView, live: TrackingLive) {
  return {
    ...view,
    eta_min: live.finalMin,
    rider: view.rider ? { ...view.rider, lat: live.position?.lat ?? null, lng: live.position?.lng ?? null } : null,
    stops: view.stops.map((s, i) => ({ ...s, eta_min: live.stopsMin[stops[i]?.position as number] ?? null })),
  };
}
