import type { Settings } from '../config/settings';
import type { Logger } from '../config/logger';
import { GazetteerPlaces, PhotonPlaces, PlacesWithFallback, type PlacesProvider } from './places';
import {
  EtaWithFallback,
  MapboxTrafficEta,
  OsrmRouting,
  RoutingWithFallback,
  StraightLineRouting,
  type EtaProvider,
  type RoutingProvider,
} from './routing';

/**
 * The map providers named by settings. Each real provider is wrapped so the offline default
 * answers when it fails: a quote or a tracking page never breaks because a map service did.
 */
export function selectMapProviders(settings: Settings, logger: Logger): { routing: RoutingProvider; eta: EtaProvider; places: PlacesProvider } {
  const estimate = new StraightLineRouting();
  const warn = (what: string) => (error: unknown) =>
    logger.warn(`${what} failed; using the offline default`, { error: error instanceof Error ? error.message : String(error) });

  const routing: RoutingProvider =
    settings.routingProvider === 'osrm'
      ? new RoutingWithFallback(new OsrmRouting({ baseUrl: settings.osrmUrl }), estimate, warn('OSRM route'))
      : estimate;

  let eta: EtaProvider = estimate;
  if (settings.etaProvider === 'mapbox') {
    eta = new EtaWithFallback(
      new MapboxTrafficEta({ accessToken: settings.mapboxToken as string, baseUrl: settings.mapboxUrl }),
      estimate,
      warn('Mapbox ETA'),
    );
  } else if (settings.etaProvider === 'osrm') {
    eta = new EtaWithFallback(new OsrmRouting({ baseUrl: settings.osrmUrl }), estimate, warn('OSRM ETA'));
  }

  const gazetteer = new GazetteerPlaces();
  const places: PlacesProvider =
    settings.placesProvider === 'photon'
      ? new PlacesWithFallback(new PhotonPlaces({ baseUrl: settings.photonUrl }), gazetteer, warn('Photon search'))
      : gazetteer;
  return { routing, eta, places };
}
