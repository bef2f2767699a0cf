import type { Pesewas } from './money';
import { pesewasToCedis } from './money';

/** One rate card for the partner and consumer channels alike. */
export interface RateCard {
  baseFare: Pesewas;
  perKm: Pesewas;
  serviceFee: Pesewas;
}

export const RATE_CARD: RateCard = { baseFare: 1000, perKm: 250, serviceFee: 200 };

export interface Fare {
  baseFare: Pesewas;
  /** Road distance over the whole route, in whole metres (as a booking stores it). */
  distanceMeters: number;
  distanceFee: Pesewas;
  serviceFee: Pesewas;
  totalFare: Pesewas;
}

/** Distance in km as shown to partners: two decimals. */
export function distanceKm(distanceMeters: number): number {
  return Math.round(distanceMeters / 10) / 100;
}

/**
 * Prices a route. The distance fee is charged on the shown distance (two decimals of a km)
 * and rounded to the pesewa, so the parts always add up to the total a partner sees. The
 * distance is first taken to whole metres, as it is stored, so the kilometres a booking shows
 * later are the ones it was charged for (11,514.99 m would otherwise be charged as 11.51 km
 * and shown as 11.52).
 */
export function priceRoute(routeMeters: number, card: RateCard = RATE_CARD): Fare {
  const distanceMeters = Math.round(routeMeters);
  const distanceFee = Math.round(distanceKm(distanceMeters) * card.perKm);
  return {
    baseFare: card.baseFare,
    distanceMeters,
    distanceFee,
    serviceFee: card.serviceFee,
    totalFare: card.baseFare + distanceFee + card.serviceFee,
  };
}

/** The Quote resource of the contract. */
export function quoteView(fare: Fare) {
  return {
    base_fare: pesewasToCedis(fare.baseFare),
    distance_km: distanceKm(fare.distanceMeters),
    distance_fee: pesewasToCedis(fare.distanceFee),
    service_fee: pesewasToCedis(fare.serviceFee),
    total_fare: pesewasToCedis(fare.totalFare),
  };
}
