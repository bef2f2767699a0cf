import type { MikroORM } from '@mikro-orm/postgresql';
import * as deliveryEta from '../db/delivery-eta';
import type { LiveFields } from '../domain/delivery-view';
import { ETA_REFRESH_SECONDS, etaFigures, etaRoute, type EtaFigures, type EtaStop, type EtaTrip, type KeptEta } from '../domain/eta';
import type { LatLng } from '../domain/geo';
import type { EtaProvider } from '../integrations/routing/provider';
import type { AppDeps } from './app-deps';

/**
 * The live ETA the public tracking view and the partner's record share. The figure is kept in
 * `delivery_etas`, so every API process shares it; whichever process first finds it 20 s old
 * claims the refresh with a conditional write, and everyone else serves the kept figure
 * meanwhile. One refresh serves both views: the provider is asked at most every 20 s a delivery,
 * however many recipients and partners poll it.
 */

/** The figures an answer shows: the kept ones, or a refresh's. */
export type ShownEta = Pick<KeptEta, 'finalMin' | 'legsMin' | 'times'>;

/**
 * Claims the refresh and computes the figures, or null when another process holds the claim, the
 * figure is fresh, or the provider failed (the claim stands: a failing provider is asked again in
 * 20 s, not on every poll).
 */
async function refresh(
  { orm, eta, logger }: { orm: MikroORM; eta: EtaProvider; logger: AppDeps['logger'] },
  trip: EtaTrip & { id: string },
  stops: EtaStop[],
  points: LatLng[],
): Promise<EtaFigures | null> {
  const em = orm.em.fork();
  if (!(await deliveryEta.claimRefresh(em, trip.id, ETA_REFRESH_SECONDS))) return null;
  let figures: EtaFigures;
  try {
    const { legSeconds } = await eta.legs(points);
    figures = etaFigures(trip, stops, legSeconds, new Date());
  } catch (error) {
    logger.warn('ETA provider failed; serving the last figure', { error: error instanceof Error ? error.message : String(error) });
    return null;
  }
  await deliveryEta.save(em, trip.id, figures);
  return figures;
}

/**
 * The ETA to show of a delivery whose live fields are `live`: the kept figure while it is fresh
 * or there is no route to time (no rider on the trip, or their position unknown); when it is due,
 * a refresh's, or the kept figure when another process holds the claim or the provider failed.
 * Null when none was ever computed.
 */
export async function currentEta(
  deps: Pick<AppDeps, 'orm' | 'eta' | 'logger'>,
  trip: EtaTrip & { id: string },
  stops: EtaStop[],
  live: LiveFields,
): Promise<ShownEta | null> {
  const points = etaRoute(trip, stops, live.position);
  if (points === null || live.eta?.fresh) return live.eta;
  return (await refresh(deps, trip, stops, points)) ?? live.eta;
}
