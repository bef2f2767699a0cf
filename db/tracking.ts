import type { EntityManager } from '@mikro-orm/postgresql';
import { deliveryVersionSql } from './deliveries';
import { poolQuery } from './pool-query';

/** The tracking view's version: the keyed record's, and where the rider is, which the view shows live. */
const TRACKING_VERSION_SQL = deliveryVersionSql('r.name, r.vehicle, r.rating, r.lat, r.lng');

const VERSION_QUERY = { name: 'tracking-version', text: `select ${TRACKING_VERSION_SQL} as version from deliveries d where d.id = $1` };

/** The tracking view's version of one delivery; null when there is no such delivery. */
export async function version(em: EntityManager, id: string): Promise<string | null> {
  const { rows } = await poolQuery(em).query<{ version: string }>({ ...VERSION_QUERY, values: [id] });
  return rows[0]?.version ?? null;
}

/** What the public tracking page may show of a delivery, and nothing more. */
export interface TrackingRow {
  id: string;
  status: string;
  package_size: string;
  pickup_address: string;
  pickup_lat: number;
  pickup_lng: number;
  dropoff_address: string;
  dropoff_lat: number;
  dropoff_lng: number;
  recipient_name: string;
  eta_min: number | null;
  eta_legs_min: (number | null)[] | null;
  eta_fresh: boolean;
  rider_name: string | null;
  rider_vehicle: string | null;
  rider_rating: string | number | null;
  rider_lat: number | null;
  rider_lng: number | null;
  stops: { position: number; dropoff_lat: number; dropoff_lng: number; status: string }[];
  events: { status: string; lat: number | null; lng: number | null; created_at: string }[];
  version: string;
}

/**
 * Everything the view shows, in one round trip: recipients poll this every few seconds, so it
 * is the hottest read of the service. Only the columns the view may show are selected.
 */
export async function publicView(em: EntityManager, id: string, etaFreshSeconds: number): Promise<TrackingRow | null> {
  const [row] = await em.execute<TrackingRow[]>(
    `select d.id, d.status, d.package_size, d.pickup_address, d.pickup_lat, d.pickup_lng,
       d.dropoff_address, d.dropoff_lat, d.dropoff_lng, d.recipient_name,
       d.eta_min, d.eta_legs_min,
       coalesce(d.eta_computed_at > now() - make_interval(secs => ?), false) as eta_fresh,
       r.name as rider_name, r.vehicle as rider_vehicle, r.rating as rider_rating, r.lat as rider_lat, r.lng as rider_lng,
       coalesce((select json_agg(json_build_object('position', s.position, 'dropoff_lat', s.dropoff_lat,
                   'dropoff_lng', s.dropoff_lng, 'status', s.status) order by s.position)
                 from delivery_stops s where s.delivery_id = d.id), '[]'::json) as stops,
       coalesce((select json_agg(json_build_object('status', e.status, 'lat', e.lat, 'lng', e.lng,
                   'created_at', e.created_at) order by e.created_at, e.id)
                 from delivery_events e where e.delivery_id = d.id), '[]'::json) as events,
       ${TRACKING_VERSION_SQL} as version
     from deliveries d left join riders r on r.id = d.rider_id
     where d.id = ?`,
    [etaFreshSeconds, id],
  );
  return row ?? null;
}
