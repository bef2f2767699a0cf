import type { EntityManager } from '@mikro-orm/postgresql';
import type { LiveFields } from '../domain/delivery-view';
import type { KeptEta } from '../domain/eta';
import { DELIVERY_VERSION_SQL, KEPT_ETA_SQL } from './deliveries';

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
  rider_name: string | null;
  rider_vehicle: string | null;
  rider_rating: string | number | null;
  stops: { position: number; dropoff_lat: number; dropoff_lng: number; status: string }[];
  events: { status: string; lat: number | null; lng: number | null; created_at: string }[];
  /** See DELIVERY_VERSION_SQL: what the settled part of the view was built from. */
  version: string;
  /** Where the rider is and the kept ETA, as read with the rest. */
  live: LiveFields;
}

type Row = Omit<TrackingRow, 'live'> & { rider_lat: number | null; rider_lng: number | null; eta: KeptEta | null };

/**
 * Everything the view shows, in one round trip: the read of a poll that finds no kept view to
 * place the live fields in. Only the columns the view may show are selected.
 */
export async function publicView(em: EntityManager, id: string): Promise<TrackingRow | null> {
  const [row] = await em.execute<Row[]>(
    `select d.id, d.status, d.package_size, d.pickup_address, d.pickup_lat, d.pickup_lng,
       d.dropoff_address, d.dropoff_lat, d.dropoff_lng, d.recipient_name,
       r.name as rider_name, r.vehicle as rider_vehicle, r.rating as rider_rating, r.lat as rider_lat, r.lng as rider_lng,
       coalesce((select json_agg(json_build_object('position', s.position, 'dropoff_lat', s.dropoff_lat,
                   'dropoff_lng', s.dropoff_lng, 'status', s.status) order by s.position)
                 from delivery_stops s where s.delivery_id = d.id), '[]'::json) as stops,
       coalesce((select json_agg(json_build_object('status', e.status, 'lat', e.lat, 'lng', e.lng,
                   'created_at', e.created_at) order by e.created_at, e.id)
                 from delivery_events e where e.delivery_id = d.id), '[]'::json) as events,
       ${KEPT_ETA_SQL} as eta,
       ${DELIVERY_VERSION_SQL} as version
     from deliveries d left join riders r on r.id = d.rider_id left join delivery_etas kept on kept.delivery_id = d.id
     where d.id = ?`,
    [id],
  );
  if (!row) return null;
  const { rider_lat: lat, rider_lng: lng, eta, ...view } = row;
  // The view shows no time of the rider's position: it is not read.
  return { ...view, live: { position: lat !== null && lng !== null ? { lat, lng, locatedAt: null } : null, eta } };
}
