import { haversineMeters, type LatLng } from '../../domain/geo';
import { StraightLineRouting } from '../../integrations/routing/straight-line';

const MAKOLA: LatLng = { lat: 5.5497, lng: -0.2096 };
const KOTOKA: LatLng = { lat: 5.6052, lng: -0.1668 };
const OSU: LatLng = { lat: 5.556, lng: -0.1769 };
const TEMA: LatLng = { lat: 5.6698, lng: -0.0166 };

describe('StraightLineRouting', () => {
  it('estimates Makola Market to Kotoka airport at about 10 km of road and 24 minutes by motorbike', async () => {
    const route = await new StraightLineRouting().route([MAKOLA, KOTOKA]);

    // About 7.8 km as the crow flies; the road trip is roughly 10–11 km.
    expect(route.distanceMeters).toBeGreaterThan(9_500);
    expect(route.distanceMeters).toBeLessThan(10_500);
    expect(route.durationSeconds / 60).toBeGreaterThan(22);
    expect(route.durationSeconds / 60).toBeLessThan(26);
    expect(route.estimated).toBe(true);
  });

  it('multiplies the straight-line distance by the detour factor', async () => {
    const crowFlies = haversineMeters(MAKOLA, KOTOKA);

    const direct = await new StraightLineRouting({ detourFactor: 1 }).route([MAKOLA, KOTOKA]);
    const byDefault = await new StraightLineRouting().route([MAKOLA, KOTOKA]);
    const winding = await new StraightLineRouting({ detourFactor: 1.5 }).route([MAKOLA, KOTOKA]);

    expect(direct.distanceMeters).toBeCloseTo(crowFlies, 6);
    expect(byDefault.distanceMeters).toBeCloseTo(crowFlies * 1.3, 6);
    expect(winding.distanceMeters).toBeCloseTo(crowFlies * 1.5, 6);
  });

  it('derives the duration from the configured average speed', async () => {
    const points = [MAKOLA, KOTOKA];
    const at25 = await new StraightLineRouting().route(points);
    const at50 = await new StraightLineRouting({ speedKmh: 50 }).route(points);

    expect(at25.durationSeconds).toBeCloseTo(at25.distanceMeters / (25_000 / 3600), 6);
    expect(at50.durationSeconds).toBeCloseTo(at25.durationSeconds / 2, 6);
  });

  it('sums the legs of a multi-stop route in order', async () => {
    const routing = new StraightLineRouting();
    const first = await routing.route([MAKOLA, OSU]);
    const second = await routing.route([OSU, KOTOKA]);
    const third = await routing.route([KOTOKA, TEMA]);

    const whole = await routing.route([MAKOLA, OSU, KOTOKA, TEMA]);

    expect(whole.distanceMeters).toBeCloseTo(first.distanceMeters + second.distanceMeters + third.distanceMeters, 6);
    expect(whole.durationSeconds).toBeCloseTo(first.durationSeconds + second.durationSeconds + third.durationSeconds, 6);
  });

  it('gives one leg duration per consecutive pair of points, adding up to the route duration', async () => {
    const routing = new StraightLineRouting();
    const points = [MAKOLA, OSU, KOTOKA, TEMA];

    const legs = await routing.legs(points);
    const route = await routing.route(points);

    expect(legs.legSeconds).toHaveLength(3);
    expect(legs.legSeconds[0]).toBeCloseTo((await routing.route([MAKOLA, OSU])).durationSeconds, 6);
    expect(legs.legSeconds.reduce((a, b) => a + b, 0)).toBeCloseTo(route.durationSeconds, 6);
    expect(legs.estimated).toBe(true);
  });

  it('returns zero for fewer than two points', async () => {
    const routing = new StraightLineRouting();

    await expect(routing.route([])).resolves.toEqual({ distanceMeters: 0, durationSeconds: 0, estimated: true });
    await expect(routing.route([MAKOLA])).resolves.toEqual({ distanceMeters: 0, durationSeconds: 0, estimated: true });
    await expect(routing.legs([MAKOLA])).resolves.toEqual({ legSeconds: [], estimated: true });
  });

  it('treats the same point twice as a zero-length leg', async () => {
    await expect(new StraightLineRouting().route([MAKOLA, MAKOLA])).resolves.toEqual({
      distanceMeters: 0,
      durationSeconds: 0,
      estimated: true,
    });
  });

  it('rejects coordinates that are not numbers instead of producing a NaN estimate', async () => {
    const broken = { lat: Number.NaN, lng: -0.2 };

    await expect(new StraightLineRouting().route([MAKOLA, broken])).rejects.toThrow(RangeError);
  });

  it('rejects a detour factor below 1 or a speed that is not positive', () => {
    expect(() => new StraightLineRouting({ detourFactor: 0.8 })).toThrow(RangeError);
    expect(() => new StraightLineRouting({ speedKmh: 0 })).toThrow(RangeError);
    expect(() => new StraightLineRouting({ speedKmh: Number.NaN })).toThrow(RangeError);
  });
});
