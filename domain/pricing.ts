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

/** Distance in hundredths of a km (tens of metres): the precision partners are shown and charged. */
function hundredthsOfKm(distanceMeters: number): number {
  return Math.round(distanceMeters / 10);
}

/** Distance in km as shown to partners: two decimals. */
export function distanceKm(distanceMeters: number): number {
  return hundredthsOfKm(distanceMeters) / 100;
}

/**
 * Prices a route. The distance fee is charged on the shown distance (two decimals of a km)
 * and rounded to the pesewa, so the parts always add up to the total a partner sees. The
 * distance is first taken to whole metres, as it is stored, so the kilometres a booking shows
 * later are the ones it was charged for (11,514.99 m would otherwise be charged as 11.51 km
 * and shown as 11.52). The fee is worked out in whole numbers (hundredths of a km times pesewas
 * per km), so a fee that falls on half a pesewa always rounds up: 2.01 km at 250 pesewas is
 * 502.5, charged 503, where the float 2.01 × 250 is 502.49999… and would round down.
 */
export function priceRoute(routeMeters: number, card: RateCard = RATE_CARD): Fare {
  const distanceMeters = Math.round(routeMeters);
  const distanceFee = Math.round((hundredthsOfKm(distanceMeters) * card.perKm) / 100);
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
