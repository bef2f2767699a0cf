import type { EntityManager } from '@mikro-orm/postgresql';
import type { EtaFigures, EtaStop, EtaTrip } from '../domain/eta';
import type { LatLng } from '../domain/geo';
import { poolQuery, type PoolQuery } from './pool-query';
import { COMMIT_WITHOUT_WAITING_FOR_DISK } from './lossy-commit';

/**
 * The ETA cached on a delivery's row, so every API process shares one figure. Whichever process
 * first finds it stale claims the refresh; the others serve the cached figure meanwhile. A status
 * change computes it afresh and stores it with the change, so its callback carries it.
 */

/**
 * Claims the refresh when the figure is older than `refreshSeconds`, or was never computed;
 * false when it is fresh or another process claimed it first. Judged by the database clock, so
 * API hosts with skewed clocks still agree on what is stale. The claim and the figures a read
 * stores commit without waiting for the disk: a crash may lose a figure, which the next read
 * computes again.
 */
export async function claimRefresh(em: EntityManager, deliveryId: string, refreshSeconds: number): Promise<boolean> {
  const claimed = await em.execute<{ id: string }[]>(
    `update deliveries set eta_computed_at = now() from ${COMMIT_WITHOUT_WAITING_FOR_DISK}
     where id = ? and (eta_computed_at is null or eta_computed_at <= now() - make_interval(secs => ?))
     returning id`,
    [deliveryId, refreshSeconds],
  );
  return claimed.length > 0;
}

/** Stores the minutes to the final drop and to each additional stop, by position, and the times. */
export async function save(em: EntityManager, deliveryId: string, eta: EtaFigures): Promise<void> {
  await em.execute(`update deliveries set eta_min = ?, eta_legs_min = ?, eta_times = ? from ${COMMIT_WITHOUT_WAITING_FOR_DISK} where id = ?`, [
    eta.finalMin,
    JSON.stringify(eta.legsMin),
    JSON.stringify(eta.times),
    deliveryId,
  ]);
}

const SAVE_WITH_CHANGE = {
  name: 'eta-save-with-change',
  text: 'update deliveries set eta_min = $2, eta_legs_min = $3, eta_times = $4, eta_computed_at = now() where id = $1',
};

/** The figures computed for a status change, stored in its transaction: fresh from now on. */
export async function saveWithChange(tx: PoolQuery, deliveryId: string, eta: EtaFigures): Promise<void> {
  await tx.query({ ...SAVE_WITH_CHANGE, values: [deliveryId, eta.finalMin, JSON.stringify(eta.legsMin), JSON.stringify(eta.times)] });
}

/** The cached figure; nulls when none is stored (or there is no such delivery). */
export async function read(em: EntityManager, deliveryId: string): Promise<{ finalMin: number | null; legsMin: (number | null)[] | null }> {
  const [row] = await em.execute<{ eta_min: number | null; eta_legs_min: (number | null)[] | null }[]>(
    'select eta_min, eta_legs_min from deliveries where id = ?',
    [deliveryId],
  );
  return { finalMin: row?.eta_min ?? null, legsMin: row?.eta_legs_min ?? null };
}

const TRIP_QUERY = {
  name: 'eta-trip',
  text: `select d.pickup_lat, d.pickup_lng, d.dropoff_lat, d.dropoff_lng, r.lat as rider_lat, r.lng as rider_lng,
           coalesce((select json_agg(json_build_object('position', s.position, 'status', s.status,
                       'dropoffLat', s.dropoff_lat, 'dropoffLng', s.dropoff_lng) order by s.position)
                     from delivery_stops s where s.delivery_id = d.id), '[]'::json) as stops
         from deliveries d left join riders r on r.id = coalesce($2, d.rider_id)
         where d.id = $1`,
};

/**
 * What a status change's ETA is worked out from: the route, the stops still to do and where the
 * rider (`riderId`, or the delivery's own rider) last was. Null when there is no such delivery.
 */
export async function tripAt(
  em: EntityManager,
  deliveryId: string,
  riderId: string | null,
): Promise<{ trip: Omit<EtaTrip, 'status'>; stops: EtaStop[]; rider: LatLng | null } | null> {
  type Row = {
    pickup_lat: number;
    pickup_lng: number;
    dropoff_lat: number;
    dropoff_lng: number;
    rider_lat: number | null;
    rider_lng: number | null;
    stops: EtaStop[];
  };
  const [row] = (await poolQuery(em).query<Row>({ ...TRIP_QUERY, values: [deliveryId, riderId] })).rows;
  if (!row) return null;
  return {
    trip: { pickupLat: row.pickup_lat, pickupLng: row.pickup_lng, dropoffLat: row.dropoff_lat, dropoffLng: row.dropoff_lng },
    stops: row.stops,
    rider: row.rider_lat === null || row.rider_lng === null ? null : { lat: row.rider_lat, lng: row.rider_lng },
  };
}
