/** A place suggestion as the contract shows it. */
export interface PlaceSuggestion {
  place_id: string;
  title: string;
  subtitle: string;
}

/** A resolved place, usable as booking coordinates. */
export interface ResolvedPlace {
  address: string;
  lat: number;
  lng: number;
}

export interface PlacesProvider {
  /** At most `limit` suggestions, best first. */
  autocomplete(query: string, limit: number): Promise<PlaceSuggestion[]>;
  /** null when the id is unknown. */
  resolve(placeId: string): Promise<ResolvedPlace | null>;
}
