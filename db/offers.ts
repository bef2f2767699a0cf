import type { EntityManager } from '@mikro-orm/postgresql';
import type { LatLng } from '../domain/geo';
import { poolQuery } from './pool-query';

/**
 * Offers of jobs to riders. Dispatch makes them, the rider app lists and takes them, and a
 * status change withdraws them (WRITE_CHANGE in transitions.ts). Every live booking offers its
 * job and an online rider's app polls its offers every few seconds, so these are named prepared
 * statements on a client of the ORM's pool.
 */

export interface OfferRow {
  id: string;
  pickup_address: string;
  pickup_lat: number;
  pickup_lng: number;
  dropoff_address: string;
  dropoff_lat: number;
  dropoff_lng: number;
  package_size: string;
  package_description: string | null;
  distance_m: number;
  stops_count: string;
  /** Each additional stop in visiting order: where, and what is handed over there. */
  stops: OfferStop[];
  expires_at: Date;
}

export interface OfferStop {
  index: number;
  dropoff_address: string;
  dropoff_lat: number;
  dropoff_lng: number;
  package_size: string;
  package_description: string | null;
}

/** What the accept decides on: the job's status, whether the rider is busy, and where the rider is. */
export interface OfferToAccept {
  status: string;
  active_delivery_id: string | null;
  lat: number | null;
  lng: number | null;
}

/**
 * Offers a job to the riders near its pickup: a bounding box first (index-friendly), then the
 * exact great-circle distance. A round that runs as the job is taken or cancelled offers nothing
 * new and reopens no withdrawn offer (see WRITE_CHANGE in transitions.ts).
 */
const OFFER = {
  name: 'offer-to-nearby-riders',
  text: `
    insert into rider_offers (delivery_id, rider_id, expires_at)
    select $1, r.id, $2::timestamptz from riders r
    where r.online and not r.is_robo and r.active_delivery_id is null
      and r.lat between $3 and $4 and r.lng between $5 and $6
      and 6371.0088 * 2 * asin(sqrt(power(sin(radians(r.lat - $7) / 2), 2)
          + cos(radians($7)) * cos(radians(r.lat)) * power(sin(radians(r.lng - $8) / 2), 2))) <= $9
      and exists (select 1 from deliveries d where d.id = $1 and d.status = 'pending')
    on conflict (delivery_id, rider_id) do update set expires_at = excluded.expires_at
      where rider_offers.expires_at > now()`,
};

const OPEN_FOR_RIDER = {
  name: 'rider-offers-with-stops',
  text: `select d.id, d.pickup_address, d.pickup_lat, d.pickup_lng, d.dropoff_address, d.dropoff_lat, d.dropoff_lng,
           d.package_size, d.package_description, d.distance_m,
           (select count(*) from delivery_stops s where s.delivery_id = d.id) as stops_count,
           coalesce((select json_agg(json_build_object(
               'index', s.position, 'dropoff_address', s.dropoff_address, 'dropoff_lat', s.dropoff_lat,
               'dropoff_lng', s.dropoff_lng, 'package_size', s.package_size, 'package_description', s.package_description
             ) order by s.position) from delivery_stops s where s.delivery_id = d.id), '[]'::json) as stops,
           o.expires_at
         from rider_offers o join deliveries d on d.id = o.delivery_id join riders r on r.id = o.rider_id
         where o.rider_id = $1 and o.expires_at > now() and d.status = 'pending'
           and r.online and r.active_delivery_id is null
         order by o.created_at desc limit 50`,
};

const TO_ACCEPT = {
  name: 'rider-offer-to-accept',
  text: `select d.status, r.active_delivery_id, r.lat, r.lng
         from rider_offers o join deliveries d on d.id = o.delivery_id join riders r on r.id = o.rider_id
         where o.delivery_id = $1 and o.rider_id = $2`,
};

/**
 * Offers the job, until `expiresAt`, to online, free, live riders within `radiusKm` of the
 * pickup; returns how many offers were made or extended.
 */
export async function offerToRidersNear(
  em: EntityManager,
  input: { deliveryId: string; pickup: LatLng; radiusKm: number; expiresAt: string },
): Promise<number> {
  const { pickup, radiusKm } = input;
  const dLat = radiusKm / 111.32;
  const dLng = radiusKm / (111.32 * Math.max(0.1, Math.cos((pickup.lat * Math.PI) / 180)));
  const { rowCount } = await poolQuery(em).query({
    ...OFFER,
    values: [
      input.deliveryId,
      input.expiresAt,
      pickup.lat - dLat,
      pickup.lat + dLat,
      pickup.lng - dLng,
      pickup.lng + dLng,
      pickup.lat,
      pickup.lng,
      radiusKm,
    ],
  });
  return rowCount ?? 0;
}

/**
 * Open offers to this rider of jobs still waiting for one, newest first; none while the rider is
 * offline or holds a job (DESIGN section 10: one active job), since taking one would be refused.
 * Offers still open show again once the rider is free and online.
 */
export async function openFor(em: EntityManager, riderId: string): Promise<OfferRow[]> {
  return (await poolQuery(em).query<OfferRow>({ ...OPEN_FOR_RIDER, values: [riderId] })).rows;
}

/** The offer of a job to this rider (null when there is none), the job's status, whether the rider is busy, and where. */
export async function toAccept(em: EntityManager, deliveryId: string, riderId: string): Promise<OfferToAccept | null> {
  const { rows } = await poolQuery(em).query<OfferToAccept>({ ...TO_ACCEPT, values: [deliveryId, riderId] });
  return rows[0] ?? null;
}
