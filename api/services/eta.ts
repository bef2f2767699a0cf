import type { MikroORM } from '@mikro-orm/postgresql';
import type { Delivery, DeliveryStop } from '../../db/entities';
import type { LatLng } from '../../domain/geo';
import type { EtaProvider } from '../../integrations/routing/provider';

/** Contract limit: the ETA is recomputed at most every 20 seconds per delivery. */
export const ETA_REFRESH_SECONDS = 20;

export interface Eta {
  /** Minutes to the final drop. */
  finalMin: number | null;
  /** Cumulative minutes to each additional stop, by position (null once handed over). */
  stopsMin: (number | null)[];
}

const LIVE = ['accepted', 'picked_up', 'in_transit'];

/**
 * Traffic-aware ETA from the rider's live position through the remaining stops to the final
 * drop. The value is cached on the delivery row, so every API process shares it; whichever
 * process first finds it older than 20 s claims the refresh with a conditional UPDATE, and
 * everyone else reads the cached figure meanwhile.
 */
export async function etaFor(
  orm: MikroORM,
  provider: EtaProvider,
  delivery: Delivery,
  stops: DeliveryStop[],
  rider: LatLng | null,
): Promise<Eta> {
  const none: Eta = { finalMin: null, stopsMin: stops.map(() => null) };
  if (!LIVE.includes(delivery.status) || rider === null) return none;

  const fresh =
    delivery.etaComputedAt !== null &&
    delivery.etaComputedAt !== undefined &&
    Date.now() - new Date(delivery.etaComputedAt).getTime() < ETA_REFRESH_SECONDS * 1000;
  const cached = (): Eta => fromCache(delivery.etaMin ?? null, delivery.etaLegsMin ?? null, stops);
  if (fresh) return cached();

  const em = orm.em.fork();
  const claimed = await em.execute<{ id: string }[]>(
    `update deliveries set eta_computed_at = now()
     where id = ? and (eta_computed_at is null or eta_computed_at < now() - interval '${ETA_REFRESH_SECONDS} seconds')
     returning id`,
    [delivery.id],
  );
  if (claimed.length === 0) {
    const [row] = await em.execute<{ eta_min: number | null; eta_legs_min: number[] | null }[]>(
      'select eta_min, eta_legs_min from deliveries where id = ?',
      [delivery.id],
    );
    return fromCache(row?.eta_min ?? null, row?.eta_legs_min ?? null, stops);
  }

  const pending = [...stops].sort((a, b) => a.position - b.position).filter((s) => s.status === 'pending');
  const points: LatLng[] = [rider];
  if (delivery.status === 'accepted') points.push({ lat: delivery.pickupLat, lng: delivery.pickupLng });
  points.push(...pending.map((s) => ({ lat: s.dropoffLat, lng: s.dropoffLng })));
  points.push({ lat: delivery.dropoffLat, lng: delivery.dropoffLng });

  const { legSeconds } = await provider.legs(points);
  const cumulative: number[] = [];
  let total = 0;
  for (const seconds of legSeconds) cumulative.push(Math.ceil((total += seconds) / 60));
  // Minutes to each remaining drop: skip the leg to the pickup when the parcel is not collected yet.
  const toDrops = delivery.status === 'accepted' ? cumulative.slice(1) : cumulative;
  const legsByPosition: (number | null)[] = stops.map(() => null);
  pending.forEach((stop, i) => (legsByPosition[stop.position] = toDrops[i] ?? null));
  const finalMin = toDrops[toDrops.length - 1] ?? 0;
  await em.execute('update deliveries set eta_min = ?, eta_legs_min = ? where id = ?', [
    finalMin,
    JSON.stringify(legsByPosition),
    delivery.id,
  ]);
  return { finalMin, stopsMin: legsByPosition };
}

function fromCache(finalMin: number | null, legs: (number | null)[] | null, stops: DeliveryStop[]): Eta {
  return {
    finalMin,
    stopsMin: stops.map((s) => (s.status === 'pending' ? (legs?.[s.position] ?? null) : null)),
  };
}
