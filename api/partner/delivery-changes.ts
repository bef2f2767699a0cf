import { randomUUID } from 'node:crypto';
import * as deliveries from '../../db/deliveries';
import { changesPlaces, dropsTouched, routeAfter, type DeliveryChange, type DropChange } from '../../domain/delivery-change';
import type { DeliveryParts } from '../../domain/delivery-view';
import { fareAsked, fareDifference } from '../../domain/fare-change';
import type { LatLng } from '../../domain/geo';
import { pesewasToCedis } from '../../domain/money';
import { priceRoute, quoteView, type Fare } from '../../domain/pricing';
import { refusalFor } from '../../domain/steps';
import { changeBookingUpdate } from '../../workflows/messages';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import type { DeliveryChangeRequest } from '../openapi/schemas';
import { throwIfRefused } from '../refusals';
import { sendDeliveryUpdate } from '../temporal/delivery-updates';
import { snapshotOf } from './delivery-snapshot';
import { checkServiceArea, routeWithinLimit } from './service-area-check';

type DropFields = Pick<DeliveryChangeRequest, 'recipient_name' | 'recipient_phone' | 'package_description' | 'dropoff_address' | 'dropoff_lat' | 'dropoff_lng'>;

/** Times a change of places is priced and sent again when another one moved the route meanwhile. */
const ATTEMPTS = 3;

/** The fields of one drop the partner named, as the workflow takes them; `at` prefixes its fields in errors. */
function dropChange(fields: DropFields, at = ''): DropChange {
  if ((fields.dropoff_lat === undefined) !== (fields.dropoff_lng === undefined)) {
    const [missing, named] = fields.dropoff_lat === undefined ? ['dropoff_lat', 'dropoff_lng'] : ['dropoff_lng', 'dropoff_lat'];
    throw ApiError.badRequest('The request is not valid', { [`${at}${missing}`]: `is required with ${named}` });
  }
  return {
    ...(fields.recipient_name !== undefined && { recipientName: fields.recipient_name }),
    ...(fields.recipient_phone !== undefined && { recipientPhone: fields.recipient_phone }),
    ...(fields.package_description !== undefined && { packageDescription: fields.package_description }),
    ...(fields.dropoff_address !== undefined && { address: fields.dropoff_address }),
    ...(fields.dropoff_lat !== undefined && fields.dropoff_lng !== undefined && { point: { lat: fields.dropoff_lat, lng: fields.dropoff_lng } }),
  };
}

/** `PATCH /partner/deliveries/{id}` as the workflow's `changeBooking` update takes it, before any re-pricing. */
export function deliveryChangeOf(body: DeliveryChangeRequest): DeliveryChange {
  return {
    ...dropChange(body),
    stops: (body.additional_stops ?? []).map((stop, i) => ({ index: stop.index, ...dropChange(stop, `additional_stops[${i}].`) })),
  };
}

/** The route as recorded: pickup, each stop in order, final drop-off. */
function routeOf({ delivery, stops }: DeliveryParts): LatLng[] {
  return [
    { lat: delivery.pickupLat, lng: delivery.pickupLng },
    ...[...stops].sort((a, b) => a.position - b.position).map((s) => ({ lat: s.dropoffLat, lng: s.dropoffLng })),
    { lat: delivery.dropoffLat, lng: delivery.dropoffLng },
  ];
}

function fareOf({ delivery: d }: DeliveryParts): Fare {
  return { baseFare: d.baseFare, distanceMeters: d.distanceM, distanceFee: d.distanceFee, serviceFee: d.serviceFee, totalFare: d.totalFare };
}

/** What a change would do to the fare, as a `dry_run` is answered. */
export type ChangePreview = ReturnType<typeof previewOf>;

function previewOf(parts: DeliveryParts, before: Fare, after: Fare) {
  const { debit, refund } = fareDifference(fareAsked(before.totalFare, parts.fareChanges), after.totalFare);
  let message: string;
  if (debit > 0) message = `The fare rises above what was already debited by ${pesewasToCedis(debit).toFixed(2)} cedis: that difference will be debited on its own`;
  else if (after.totalFare > before.totalFare) message = 'The fare rises, but no higher than what was already debited: nothing more is debited';
  else if (after.totalFare < before.totalFare) message = 'The fare falls: nothing is refunded, as the contract has no refunds';
  else message = 'The fare does not change';
  return {
    dry_run: true as const,
    status: parts.delivery.status,
    fare_before: quoteView(before),
    fare_after: quoteView(after),
    debit_amount: pesewasToCedis(debit),
    refund_amount: pesewasToCedis(refund),
    message: `${message}. Nothing has changed yet.`,
  };
}

/**
 * A partner's change of a booking: refused first on the read model by the step rules (a fast,
 * clear answer that holds while Temporal is unreachable); new coordinates are checked against the
 * service area and the route priced again; then it goes to the workflow, the single writer, which
 * checks it again on its own state and writes it. A change of places priced on a route that another
 * change moved meanwhile is refused by the workflow, and priced and sent again here.
 */
export function createDeliveryChanges(deps: AppDeps) {
  const { orm, settings, routing } = deps;

  /** The change with the new route's price when a point moves; refused when the route cannot be ridden. */
  async function priced(parts: DeliveryParts, change: DeliveryChange): Promise<{ change: DeliveryChange; after: Fare }> {
    const before = fareOf(parts);
    const moves = change.point !== undefined || change.stops.some((s) => s.point !== undefined);
    if (!moves) return { change, after: before };
    const from = routeOf(parts);
    const route = routeAfter(from, change);
    const [pickup, ...rest] = route as [LatLng, ...LatLng[]];
    const dropoff = rest[rest.length - 1] as LatLng;
    checkServiceArea(
      { settings },
      {
        pickup_lat: pickup.lat,
        pickup_lng: pickup.lng,
        dropoff_lat: dropoff.lat,
        dropoff_lng: dropoff.lng,
        additional_stops: rest.slice(0, -1).map((p) => ({ dropoff_lat: p.lat, dropoff_lng: p.lng })),
      },
    );
    const after = priceRoute((await routeWithinLimit({ routing, settings }, route)).distanceMeters);
    return { change: { ...change, repricing: { changeId: randomUUID(), pricedFrom: from, fare: after } }, after };
  }

  /** Applies the change, or with `dry_run` tells what it would do; the preview, or null once applied. */
  return async function changeDelivery(first: DeliveryParts, body: DeliveryChangeRequest): Promise<ChangePreview | null> {
    const asked = deliveryChangeOf(body);
    if (dropsTouched(asked).length === 0) {
      throw ApiError.badRequest('The request changes nothing', {
        body: 'name recipient_name, recipient_phone, package_description, dropoff_address, dropoff_lat and dropoff_lng, or additional_stops',
      });
    }
    const places = changesPlaces(asked);
    let parts = first;
    for (let attempt = 1; ; attempt++) {
      throwIfRefused(refusalFor(snapshotOf(parts), { kind: 'change_booking', stops: asked.stops.map((s) => s.index), places }));
      const { change, after } = await priced(parts, asked);
      if (body.dry_run) return previewOf(parts, fareOf(parts), after);
      try {
        await sendDeliveryUpdate(
          deps,
          parts.delivery.id,
          (handle) => handle.executeUpdate(changeBookingUpdate, { args: [change] }),
          () => deliveries.statusOf(orm.em.fork(), parts.delivery.id),
        );
        return null;
      } catch (error) {
        // Another change of places was written meanwhile: price this one on the route as it is now.
        if (!(places && error instanceof ApiError && error.status === 409 && attempt < ATTEMPTS)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
        parts = (await deliveries.load(orm.em.fork(), parts.delivery.id)) ?? parts;
      }
    }
  };
}
