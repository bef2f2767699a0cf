import type { LatLng } from '../../domain/geo';

/** Road distance and duration over a whole route (pickup → stops → drop-off), in order. */
export interface RouteSummary {
  distanceMeters: number;
  durationSeconds: number;
  /** True when the figures come from an estimate rather than a road network. */
  estimated: boolean;
}

/** Travel time for each leg of a route, traffic-aware where the provider allows. */
export interface LegDurations {
  /** One entry per leg: points[i] → points[i + 1]. */
  legSeconds: number[];
  estimated: boolean;
}

/** Road distance for pricing. */
export interface RoutingProvider {
  route(points: LatLng[]): Promise<RouteSummary>;
}

/** Live ETA for tracking. */
export interface EtaProvider {
  legs(points: LatLng[]): Promise<LegDurations>;
}
