export type { EtaProvider, LegDurations, RouteSummary, RoutingProvider } from './provider';
export { StraightLineRouting, type StraightLineOptions } from './straight-line';
export { OsrmRouting, type OsrmOptions } from './osrm';
export { MapboxTrafficEta, type MapboxTrafficEtaOptions } from './mapbox';
export { EtaWithFallback, RoutingWithFallback, type FallbackListener } from './with-fallback';
