import type { LatLng } from './geo';
import { FINAL_DROP } from './lifecycle';
import type { Fare } from './pricing';

/**
 * New details of one drop. Each field left out stays as it is; a null description clears it.
 * Who receives it and what the parcel is change until the drop is handed over; where it is
 * (`address`, `point`) only while the delivery is `pending`.
 */
export interface DropChange {
  recipientName?: string;
  recipientPhone?: string;
  packageDescription?: string | null;
  address?: string;
  point?: LatLng;
}

/** A partner's change of a booking: the final drop's, and each additional stop's by index. */
export interface DeliveryChange extends DropChange {
  stops: (DropChange & { index: number })[];
  /** Present when a point moves: the route is priced again. */
  repricing?: Repricing;
}

/**
 * The new route's price, worked out by the API from the route it read. The workflow takes it only
 * if its own route is still `pricedFrom`: a change that moved it meanwhile would make this price stale.
 */
export interface Repricing {
  /** Names the fare change, so an activity retried after its commit records it once. */
  changeId: string;
  /** Pickup, each stop, final drop-off, as the route stood when priced. */
  pricedFrom: LatLng[];
  fare: Fare;
}

/** Whether the change names any field of this drop. */
export function changesDrop({ recipientName, recipientPhone, packageDescription, address, point }: DropChange): boolean {
  return [recipientName, recipientPhone, packageDescription, address, point].some((field) => field !== undefined);
}

/** The drops a change touches: each stop by index, then FINAL_DROP when it names the final drop. */
export function dropsTouched(change: DeliveryChange): number[] {
  return [...change.stops.map((stop) => stop.index), ...(changesDrop(change) ? [FINAL_DROP] : [])];
}

/** Whether the change moves or renames a place: allowed only while the delivery is pending. */
export function changesPlaces(change: DeliveryChange): boolean {
  return [change, ...change.stops].some((drop) => drop.address !== undefined || drop.point !== undefined);
}

/** The route (pickup, stops, final drop-off) with the change's new points in it. */
export function routeAfter(route: readonly LatLng[], change: DeliveryChange): LatLng[] {
  const next = [...route];
  for (const stop of change.stops) if (stop.point) next[stop.index + 1] = stop.point;
  if (change.point) next[next.length - 1] = change.point;
  return next;
}

/** Two routes are the same when every point is (coordinates as stored: doubles, compared exactly). */
export function sameRoute(a: readonly LatLng[], b: readonly LatLng[]): boolean {
  return a.length === b.length && a.every((p, i) => p.lat === b[i]?.lat && p.lng === b[i]?.lng);
}
