import { haversineMeters, type LatLng } from '../../domain/geo';
import type { EtaProvider, LegDurations, RouteSummary, RoutingProvider } from './provider';

export interface StraightLineOptions {
  /** Roads are longer than the crow flies; 1.3 is a common urban circuity figure. */
  detourFactor?: number;
  /** Average motorbike speed through city traffic, stops and junctions included. */
  speedKmh?: number;
}

const DEFAULT_DETOUR_FACTOR = 1.3;
const DEFAULT_SPEED_KMH = 25;

/**
 * Offline estimate: needs no network, so it is the default and the fallback when a
 * routing service is down. Figures are always flagged `estimated`.
 */
export class StraightLineRouting implements RoutingProvider, EtaProvider {
  private readonly detourFactor: number;
  private readonly metresPerSecond: number;

  constructor(options: StraightLineOptions = {}) {
    const detourFactor = options.detourFactor ?? DEFAULT_DETOUR_FACTOR;
    const speedKmh = options.speedKmh ?? DEFAULT_SPEED_KMH;
    if (!Number.isFinite(detourFactor) || detourFactor < 1) {
      throw new RangeError(`detourFactor must be a finite number ≥ 1, got ${detourFactor}`);
    }
    if (!Number.isFinite(speedKmh) || speedKmh <= 0) {
      throw new RangeError(`speedKmh must be a finite number > 0, got ${speedKmh}`);
    }
    this.detourFactor = detourFactor;
    this.metresPerSecond = (speedKmh * 1000) / 3600;
  }

  async route(points: LatLng[]): Promise<RouteSummary> {
    const distanceMeters = this.legMeters(points).reduce((sum, m) => sum + m, 0);
    return { distanceMeters, durationSeconds: distanceMeters / this.metresPerSecond, estimated: true };
  }

  async legs(points: LatLng[]): Promise<LegDurations> {
    return { legSeconds: this.legMeters(points).map((m) => m / this.metresPerSecond), estimated: true };
  }

  /** Estimated road metres per leg; empty for fewer than two points. */
  private legMeters(points: LatLng[]): number[] {
    const legs: number[] = [];
    for (let i = 1; i < points.length; i++) {
      const from = points[i - 1]!;
      const to = points[i]!;
      const metres = haversineMeters(from, to) * this.detourFactor;
      // A NaN here would silently become a NaN price or ETA downstream.
      if (!Number.isFinite(metres)) {
        throw new RangeError(`invalid coordinates in leg ${i - 1}: ${JSON.stringify([from, to])}`);
      }
      legs.push(metres);
    }
    return legs;
  }
}
