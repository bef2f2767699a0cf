import { distanceKm, priceRoute, quoteView, RATE_CARD } from '../../domain/pricing';
import { cedisToPesewas, pesewasToCedis } from '../../domain/money';

describe('pricing', () => {
  it('adds base fare, distance fee and service fee into the total', () => {
    const fare = priceRoute(12_345);
    expect(fare.totalFare).toBe(fare.baseFare + fare.distanceFee + fare.serviceFee);
    expect(fare.baseFare).toBe(RATE_CARD.baseFare);
    expect(fare.serviceFee).toBe(RATE_CARD.serviceFee);
  });

  it('charges the per-km fee on the distance shown, rounded to the pesewa', () => {
    const fare = priceRoute(12_345);
    expect(distanceKm(12_345)).toBe(12.35);
    expect(fare.distanceFee).toBe(Math.round(12.35 * RATE_CARD.perKm));
  });

  it('charges the kilometres a booking shows later, for a route of fractional metres', () => {
    for (const routeMeters of [11_514.99, 11_515.49, 4_994.5, 87_654.321]) {
      const fare = priceRoute(routeMeters);
      // A booking stores whole metres and shows them as km with two decimals.
      expect(Number.isInteger(fare.distanceMeters)).toBe(true);
      expect(fare.distanceMeters).toBe(Math.round(routeMeters));
      expect(fare.distanceFee).toBe(Math.round(distanceKm(fare.distanceMeters) * RATE_CARD.perKm));
    }
    expect(quoteView(priceRoute(11_514.99))).toMatchObject({ distance_km: 11.52, distance_fee: 28.8 });
  });

  it('rounds a distance fee of half a pesewa up at every distance', () => {
    // 2.01 km × 250 pesewas is 502.5 pesewas; as floats 2.01 × 250 is 502.49999…
    expect(priceRoute(2_010).distanceFee).toBe(503);
    expect(quoteView(priceRoute(2_010))).toMatchObject({ distance_km: 2.01, distance_fee: 5.03, total_fare: 17.03 });
    expect(quoteView(priceRoute(16_130))).toMatchObject({ distance_km: 16.13, distance_fee: 40.33 });
    const wrong: string[] = [];
    for (let hundredths = 0; hundredths <= 30_000; hundredths++) {
      const exact = hundredths * RATE_CARD.perKm; // in hundredths of a pesewa, a whole number
      const halfUp = (exact - (exact % 100)) / 100 + (exact % 100 >= 50 ? 1 : 0);
      const fee = priceRoute(hundredths * 10).distanceFee;
      if (fee !== halfUp) wrong.push(`${hundredths / 100} km: ${fee}, not ${halfUp}`);
    }
    expect(wrong).toEqual([]);
  });

  it('shows cedis with at most two decimals and parts that add up exactly', () => {
    for (const metres of [0, 1, 999, 5_555, 12_345, 87_654, 123_456]) {
      const quote = quoteView(priceRoute(metres));
      for (const value of [quote.base_fare, quote.distance_fee, quote.service_fee, quote.total_fare, quote.distance_km]) {
        expect(Math.round(value * 100) / 100).toBe(value);
      }
      expect(cedisToPesewas(quote.base_fare) + cedisToPesewas(quote.distance_fee) + cedisToPesewas(quote.service_fee)).toBe(
        cedisToPesewas(quote.total_fare),
      );
    }
  });

  it('prices a longer route higher', () => {
    expect(priceRoute(20_000).totalFare).toBeGreaterThan(priceRoute(10_000).totalFare);
  });

  it('converts between pesewas and cedis without floating drift', () => {
    expect(pesewasToCedis(1234)).toBe(12.34);
    expect(cedisToPesewas(0.1 + 0.2)).toBe(30);
  });
});
