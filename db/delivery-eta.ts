import type { EntityManager } from '@mikro-orm/postgresql';
import type { EtaFigures, EtaStop, EtaTrip } from '../domain/eta';
import type { LatLng } from '../domain/geo';
import { poolQuery, type PoolQuery } from './pool-query';
import { COMMIT_WITHOUT_WAITING_FOR_DISK } from './lossy-commit';

/**
 * A delivery's ETA, kept in `delivery_etas` so every API process shares one figure. Whichever
 * process first finds it stale claims the refresh; the others serve the kept figure meanwhile. A
 * status change computes it afresh and stores it with the change, so its callback carries it.
 * Apart from the delivery's row: a refresh every 20 s of a live job would otherwise move the
 * row's version, and with it every kept answer about the delivery (docs/decisions/0175).
 */

const CLAIM_REFRESH = {
  name: 'eta-claim-refresh',
  text: `insert into delivery_etas as e (delivery_id, computed_at) select $1::uuid, now() from ${COMMIT_WITHOUT_WAITING_FOR_DISK}
         on conflict (delivery_id) do update set computed_at = now()
           where e.computed_at is null or e.computed_at <= now() - make_interval(secs => $2::float8)
         returning e.delivery_id`,
};

/**
 * Claims the refresh when the figure is older than `refreshSeconds`, or was never computed;
 * false when it is fresh or another process claimed it first. Judged by the database clock, so
 * API hosts with skewed clocks still agree on what is stale. The claim and the figures a read
 * stores commit without waiting for the disk: a crash may lose a figure, which the next read
 * computes again.
 */
export async function claimRefresh(em: EntityManager, deliveryId: string, refreshSeconds: number): Promise<boolean> {
  return (await poolQuery(em).query({ ...CLAIM_REFRESH, values: [deliveryId, refreshSeconds] })).rows.length > 0;
}

const SAVE = {
  name: 'eta-save',
  text: `update delivery_etas set eta_min = $2, eta_legs_min = $3, eta_times = $4 from ${COMMIT_WITHOUT_WAITING_FOR_DISK} where delivery_id = $1`,
};

/** Stores the minutes to the final drop and to each additional stop, by position, and the times (after a claim). */
export async function save(em: EntityManager, deliveryId: string, eta: EtaFigures): Promise<void> {
  await poolQuery(em).query({ ...SAVE, values: [deliveryId, eta.finalMin, JSON.stringify(eta.legsMin), JSON.stringify(eta.times)] });
}

const SAVE_WITH_CHANGE = {
  name: 'eta-save-with-change',
  text: `insert into delivery_etas (delivery_id, eta_min, eta_legs_min, eta_times, computed_at) values ($1, $2, $3, $4, now())
         on conflict (delivery_id) do update
           set eta_min = excluded.eta_min, eta_legs_min = excluded.eta_legs_min, eta_times = excluded.eta_times, computed_at = excluded.computed_at`,
};

/** The figures computed for a status change, stored in its transaction: fresh from now on. */
export async function saveWithChange(tx: PoolQuery, deliveryId: string, eta: EtaFigures): Promise<void> {
  await tx.query({ ...SAVE_WITH_CHANGE, values: [deliveryId, eta.finalMin, JSON.stringify(eta.legsMin), JSON.stringify(eta.times)] });
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
