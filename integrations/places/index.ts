export type { PlaceSuggestion, PlacesProvider, ResolvedPlace } from './provider';
export { GazetteerPlaces, type GazetteerEntry } from './gazetteer';
export { PhotonPlaces, PHOTON_ID_PREFIX, type PhotonPlacesOptions } from './photon';
export { PlacesWithFallback, type PlacesErrorListener } from './with-fallback';
