import type { LatLng } from '../../domain/geo';
import type { EtaProvider, LegDurations, RouteSummary, RoutingProvider } from './provider';

/** Told why the primary failed, e.g. to log it; its own failures are ignored. */
export type FallbackListener = (error: unknown) => void;

/**
 * Quoting a price must not depend on a third-party routing service being up:
 * when the primary fails, the fallback (normally StraightLineRouting) answers instead.
 */
export class RoutingWithFallback implements RoutingProvider {
  constructor(
    private readonly primary: RoutingProvider,
    private readonly fallback: RoutingProvider,
    private readonly onError?: FallbackListener,
  ) {}

  async route(points: LatLng[]): Promise<RouteSummary> {
    try {
      return await this.primary.route(points);
    } catch (error) {
      notify(this.onError, error);
      // Whatever the fallback is, its figures are not the primary's road network.
      return { ...(await this.fallback.route(points)), estimated: true };
    }
  }
}

/** Tracking keeps showing an ETA when the live traffic service fails. */
export class EtaWithFallback implements EtaProvider {
  constructor(
    private readonly primary: EtaProvider,
    private readonly fallback: EtaProvider,
    private readonly onError?: FallbackListener,
  ) {}

  async legs(points: LatLng[]): Promise<LegDurations> {
    try {
      return await this.primary.legs(points);
    } catch (error) {
      notify(this.onError, error);
      return { ...(await this.fallback.legs(points)), estimated: true };
    }
  }
}

function notify(listener: FallbackListener | undefined, error: unknown): void {
  try {
    listener?.(error);
  } catch {
    // A broken logger must not cost the customer their quote or ETA.
  }
}
