import type { MikroORM } from '@mikro-orm/postgresql';
import * as deliveryEta from '../db/delivery-eta';
import type { DeliveryParts } from '../domain/delivery-view';
import { ETA_REFRESH_SECONDS, etaFigures, etaRoute, isLive, type EtaFigures, type EtaStop, type EtaTrip } from '../domain/eta';
import type { LatLng } from '../domain/geo';
import type { EtaProvider } from '../integrations/routing/provider';
import type { AppDeps } from './app-deps';

/**
 * The live ETA the public tracking view and the partner's record share. The figure is cached on
 * the delivery row, so every API process shares it; whichever process first finds it 20 s old
 * claims the refresh with a conditional UPDATE, and everyone else reads the cached figure
 * meanwhile. One refresh serves both views: the provider is asked at most every 20 s a delivery,
 * however many recipients and partners poll it.
 */

/** The parts of a delivery row the tracking view's ETA needs, with the cached figure. */
export interface CachedEtaTrip extends EtaTrip {
  id: string;
  etaMin: number | null;
  etaLegsMin: (number | null)[] | null;
  /** The cached figure is younger than ETA_REFRESH_SECONDS, by the database clock. */
  etaFresh: boolean;
}

export interface Eta {
  /** Minutes to the final drop. */
  finalMin: number | null;
  /** Cumulative minutes to each additional stop, by position (null once handed over). */
  stopsMin: (number | null)[];
}

/** Told when the provider fails; the last figure is served until the next refresh is due. */
export type EtaErrorListener = (error: unknown) => void;

/**
 * Claims the refresh and computes the figures, or null when another process holds the claim, the
 * figure is fresh, or the provider failed (the claim stands: a failing provider is asked again in
 * 20 s, not on every poll).
 */
async function refresh(
  orm: MikroORM,
  provider: EtaProvider,
  id: string,
  trip: EtaTrip,
  stops: EtaStop[],
  points: LatLng[],
  onError?: EtaErrorListener,
): Promise<EtaFigures | null> {
  const em = orm.em.fork();
  if (!(await deliveryEta.claimRefresh(em, id, ETA_REFRESH_SECONDS))) return null;
  let figures: EtaFigures;
  try {
    const { legSeconds } = await provider.legs(points);
    figures = etaFigures(trip, stops, legSeconds, new Date());
  } catch (error) {
    onError?.(error);
    return null;
  }
  await deliveryEta.save(em, id, figures);
  return figures;
}

/** Traffic-aware minutes from the rider's live position through the remaining stops to the final drop. */
export async function etaFor(
  orm: MikroORM,
  provider: EtaProvider,
  trip: CachedEtaTrip,
  stops: EtaStop[],
  rider: LatLng | null,
  onError?: EtaErrorListener,
): Promise<Eta> {
  const points = etaRoute(trip, stops, rider);
  if (points === null) return { finalMin: null, stopsMin: stops.map(() => null) };
  if (trip.etaFresh) return fromCache(trip.etaMin, trip.etaLegsMin, stops);
  const figures = await refresh(orm, provider, trip.id, trip, stops, points, onError);
  if (figures === null) return readCache(orm, trip.id, stops);
  return { finalMin: figures.finalMin, stopsMin: figures.legsMin };
}

/**
 * Refreshes the kept times of a delivery the partner is reading, when they are due (the same
 * 20-second claim as the tracking view's). True when this call stored new ones, so the record is
 * read again to show them.
 */
export async function refreshRecordEta({ orm, eta, logger }: Pick<AppDeps, 'orm' | 'eta' | 'logger'>, parts: DeliveryParts): Promise<boolean> {
  const { delivery: d, stops, rider } = parts;
  if (!isLive(d.status) || !rider || rider.lat == null || rider.lng == null) return false;
  // The claim is judged by the database clock; this only spares it a round trip when plainly fresh.
  const computedAt = d.etaComputedAt ? new Date(d.etaComputedAt).getTime() : null;
  if (computedAt !== null && Date.now() - computedAt < ETA_REFRESH_SECONDS * 1000) return false;
  const etaStops: EtaStop[] = stops.map((s) => ({ position: s.position, status: s.status, dropoffLat: s.dropoffLat, dropoffLng: s.dropoffLng }));
  const points = etaRoute(d, etaStops, { lat: rider.lat, lng: rider.lng });
  if (points === null) return false;
  const onError = (error: unknown) =>
    logger.warn('ETA provider failed; serving the last figure', { error: error instanceof Error ? error.message : String(error) });
  return (await refresh(orm, eta, d.id, d, etaStops, points, onError)) !== null;
}

/** Another process holds the refresh: serve the figure it (or an earlier one) stored. */
async function readCache(orm: MikroORM, deliveryId: string, stops: EtaStop[]): Promise<Eta> {
  const cached = await deliveryEta.read(orm.em.fork(), deliveryId);
  return fromCache(cached.finalMin, cached.legsMin, stops);
}

function fromCache(finalMin: number | null, legs: (number | null)[] | null, stops: EtaStop[]): Eta {
  const stopsMin: (number | null)[] = stops.map(() => null);
  for (const s of stops) stopsMin[s.position] = s.status === 'pending' ? (legs?.[s.position] ?? null) : null;
  return { finalMin, stopsMin };
}
