import type { Delivery, DeliveryEvent, DeliveryStop, Rider } from '../db/entities';
import { isLive, recordEta } from './eta';
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
}

/** The Delivery resource exactly as the REST API returns it (and as webhooks carry it in `data`). */
export function deliveryView({ delivery: d, stops, events, fareChanges, rider }: DeliveryParts, siteUrl: string) {
  const eta = recordEta(d.status, d.etaTimes);
  // Where the rider is shows only while they are on this job: where they go next is not the partner's.
  const position = rider && isLive(d.status) && rider.lat != null && rider.lng != null ? rider : null;
  return {
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
          lat: position?.lat ?? null,
          lng: position?.lng ?? null,
          located_at: position?.locatedAt ? isoZ(position.locatedAt) : null,
        }
      : null,
    pickup_eta: eta.pickupEta,
    dropoff_eta: eta.dropoffEta,
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
    additional_stops: [...stops]
      .sort((a, b) => a.position - b.position)
      .map((s) => ({
        dropoff_address: s.dropoffAddress,
        dropoff_lat: s.dropoffLat,
        dropoff_lng: s.dropoffLng,
        recipient_name: s.recipientName,
        recipient_phone: s.recipientPhone,
        package_size: s.packageSize,
        package_description: s.packageDescription ?? null,
        status: s.status,
        delivered_at: s.deliveredAt ? isoZ(s.deliveredAt) : null,
        eta: eta.stopEta(s.position, s.status),
      })),
    tracking_url: `${siteUrl}/track?id=${d.id}`,
    created_at: isoZ(d.createdAt),
    delivered_at: d.deliveredAt ? isoZ(d.deliveredAt) : null,
    events: [...events]
      .sort((a, b) => new Date(a.createdAt).getTime() - new Date(b.createdAt).getTime() || Number(a.id) - Number(b.id))
      .map((e) => ({ status: e.status, created_at: isoZ(e.createdAt) })),
  };
}
export type DeliveryResource = ReturnType<typeof deliveryView>;
