import { PHOTON_ID_PREFIX } from './photon';
import type { PlaceSuggestion, PlacesProvider, ResolvedPlace } from './provider';

export type PlacesErrorListener = (error: unknown) => void;

/**
 * Search that keeps working when the live geocoder does not: the primary (Photon) answers
 * while it can, the fallback (the bundled gazetteer) when it throws. Each provider's ids
 * are its own, so `resolve` asks the one whose id format matches first.
 */
export class PlacesWithFallback implements PlacesProvider {
  constructor(
    private readonly primary: PlacesProvider,
    private readonly fallback: PlacesProvider,
    private readonly onError?: PlacesErrorListener,
  ) {}

  async autocomplete(query: string, limit: number): Promise<PlaceSuggestion[]> {
    try {
      return await this.primary.autocomplete(query, limit);
    } catch (error) {
      this.report(error);
      return this.fallback.autocomplete(query, limit);
    }
  }

  async resolve(placeId: string): Promise<ResolvedPlace | null> {
    const [first, second] = placeId.startsWith(PHOTON_ID_PREFIX)
      ? [this.primary, this.fallback]
      : [this.fallback, this.primary];
    try {
      return await first.resolve(placeId);
    } catch (error) {
      this.report(error);
      return second.resolve(placeId);
    }
  }

  /** A failing listener must not turn a recovered failure into an outage. */
  private report(error: unknown): void {
    try {
      this.onError?.(error);
    } catch {
      // ignored on purpose: see above
    }
  }
}
