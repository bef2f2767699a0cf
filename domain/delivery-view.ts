import type { Delivery, DeliveryEvent, DeliveryStop, Rider } from '../db/entities';
import { isLive, recordEta, type EtaStop, type EtaTimes, type EtaTrip, type KeptEta } from './eta';
import { amountPaid, fareChangesView, type FareChange } from './fare-change';
import { pesewasToCedis } from './money';
import { distanceKm } from './pricing';
import { firstNameAndInitial } from './redaction';

/** Timestamps in answers use `Z`; webhook `occurred_at` uses the `+00:00` offset form. */
export function isoZ(date: Date | string): string {
  return (typeof date === 'string' ? new Date(date) : date).toISOString();
}

export function isoOffset(date: Date | string): string {
  return isoZ(date).replace(/Z$/, '+00:00');
}

export interface DeliveryParts {
  delivery: Delivery;
  stops: DeliveryStop[];
  events: DeliveryEvent[];
  /** Each time a change of places priced the route again, oldest first. */
  fareChanges: FareChange[];
  rider: Rider | null;
  /** The ETA last computed for it; null when none ever was. */
  eta: KeptEta | null;
}

/**
 * What an answer about a delivery shows that moves without the delivery's version: where its
 * rider last reported (null when unknown or there is no rider) and its kept ETA. Recipients and
 * partners poll live jobs far more often than anything else about them changes.
 */
export interface LiveFields {
  position: { lat: number; lng: number; locatedAt: Date | string | null } | null;
  eta: KeptEta | null;
}

/** The live fields of parts read whole. */
export function liveFieldsOf({ rider, eta }: DeliveryParts): LiveFields {
  const position = rider && rider.lat != null && rider.lng != null ? { lat: rider.lat, lng: rider.lng, locatedAt: rider.locatedAt ?? null } : null;
  return { position, eta };
}

/** What the record shows of the live fields: each is null unless a rider is on the job. */
export interface RecordLive {
  position: LiveFields['position'];
  times: EtaTimes | null;
}

/**
 * The record's part of `live` at `status`, with the ETA's times `times` (the kept ones, or a
 * refresh's). Built field by field, so equal figures give equal JSON whichever way they were read
 * (the ETag is worked out from it; `jsonb` keeps an object's keys in an order of its own).
 */
export function recordLive(status: string, live: LiveFields, times: EtaTimes | null | undefined): RecordLive {
  if (!isLive(status)) return { position: null, times: null };
  const { position } = live;
  return {
    position: position && { lat: position.lat, lng: position.lng, locatedAt: position.locatedAt },
    times: times ? { pickup: times.pickup, dropoff: times.dropoff, stops: times.stops } : null,
  };
}

/**
 * The Delivery resource exactly as the REST API returns it (and as webhooks carry it in `data`),
 * from parts read whole: the settled answer with its live fields placed in it.
 */
export function deliveryView(parts: DeliveryParts, siteUrl: string) {
  const settled = settledDeliveryView(parts, siteUrl);
  return withRecordLive(settled, recordLive(settled.view.status, liveFieldsOf(parts), parts.eta?.times));
}
export type DeliveryResource = ReturnType<typeof deliveryView>;

/**
 * The Delivery resource with null where the live fields go (the rider's `lat`, `lng` and
 * `located_at`, `pickup_eta`, `dropoff_eta` and each stop's `eta`), with what timing the trip
 * needs: its points and its stops, in the order of `additional_stops`. It changes only when the
 * delivery's version does, so it is built once per version and kept (api/partner/deliveries-routes.ts).
 */
export function settledDeliveryView({ delivery: d, stops, events, fareChanges, rider }: DeliveryParts, siteUrl: string) {
  const sortedStops = [...stops].sort((a, b) => a.position - b.position);
  const view = {
    id: d.id,
    reference: d.reference,
    status: d.status,
    pickup_address: d.pickupAddress,
    pickup_lat: d.pickupLat,
    pickup_lng: d.pickupLng,
    dropoff_address: d.dropoffAddress,
    dropoff_lat: d.dropoffLat,
    dropoff_lng: d.dropoffLng,
    package_size: d.packageSize,
    package_description: d.packageDescription ?? null,
    recipient_name: d.recipientName,
    recipient_phone: d.recipientPhone,
    rider_id: d.riderId ?? null,
    rider: rider
      ? {
          id: rider.id,
          name: firstNameAndInitial(rider.name),
          vehicle: rider.vehicle ?? null,
          rating: rider.rating === null || rider.rating === undefined ? null : Number(rider.rating),
          lat: null as number | null,
          lng: null as number | null,
          located_at: null as string | null,
        }
      : null,
    pickup_eta: null as string | null,
    dropoff_eta: null as string | null,
    base_fare: pesewasToCedis(d.baseFare),
    distance_km: distanceKm(d.distanceM),
    distance_fee: pesewasToCedis(d.distanceFee),
    service_fee: pesewasToCedis(d.serviceFee),
    total_fare: pesewasToCedis(d.totalFare),
    payment_method: 'gateway' as const,
    payment_method_id: d.paymentMethodId,
    payment_status: d.paymentStatus,
    amount_paid: pesewasToCedis(amountPaid(d, fareChanges)),
    fare_changes: fareChangesView(fareChanges),
    verification_method: d.verificationMethod,
    scheduled_at: d.scheduledAt ? isoZ(d.scheduledAt) : null,
    additional_stops: sortedStops.map((s) => ({
      dropoff_address: s.dropoffAddress,
      dropoff_lat: s.dropoffLat,
      dropoff_lng: s.dropoffLng,
      recipient_name: s.recipientName,
      recipient_phone: s.recipientPhone,
      package_size: s.packageSize,
      package_description: s.packageDescription ?? null,
      status: s.status,
      delivered_at: s.deliveredAt ? isoZ(s.deliveredAt) : null,
      eta: null as string | null,
    })),
    tracking_url: `${siteUrl}/track?id=${d.id}`,
    created_at: isoZ(d.createdAt),
    delivered_at: d.deliveredAt ? isoZ(d.deliveredAt) : null,
    events: [...events]
      .sort((a, b) => new Date(a.createdAt).getTime() - new Date(b.createdAt).getTime() || Number(a.id) - Number(b.id))
      .map((e) => ({ status: e.status, created_at: isoZ(e.createdAt) })),
  };
  const trip: EtaTrip & { id: string } = { id: d.id, status: d.status, pickupLat: d.pickupLat, pickupLng: d.pickupLng, dropoffLat: d.dropoffLat, dropoffLng: d.dropoffLng };
  const etaStops: EtaStop[] = sortedStops.map((s) => ({ position: s.position, status: s.status, dropoffLat: s.dropoffLat, dropoffLng: s.dropoffLng }));
  return { view, trip, stops: etaStops };
}
export type SettledDeliveryView = ReturnType<typeof settledDeliveryView>;

/**
 * The settled answer with the live fields in their places. Spreading keeps every key where the
 * settled answer has it, so the JSON is byte for byte what one built whole would be.
 */
export function withRecordLive({ view, stops }: SettledDeliveryView, live: RecordLive) {
  const eta = recordEta(view.status, live.times);
  const { position } = live;
  return {
    ...view,
    rider:
      view.rider && position
        ? { ...view.rider, lat: position.lat, lng: position.lng, located_at: position.locatedAt ? isoZ(position.locatedAt) : null }
        : view.rider,
    pickup_eta: eta.pickupEta,
    dropoff_eta: eta.dropoffEta,
    additional_stops: view.additional_stops.map((s, i) => ({ ...s, eta: eta.stopEta(stops[i]?.position as number, s.status) })),
  };
}
