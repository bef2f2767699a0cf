import type { EntityManager } from '@mikro-orm/postgresql';
import { boxAround, cellBands, type LatLng } from '../domain/geo';
import { poolQuery } from './pool-query';
import { JOB_RECIPIENTS_JSON, JOB_VIEW_JSON, type JobRecipient, type JobViewRead, type RiderJobView } from './riders';

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

/**
 * What the accept decides on: the job's status, whether the rider is busy, and where the rider
 * is; and the job's view, to answer the accept with once the workflow has taken it.
 */
export interface OfferToAccept {
  status: string;
  /** Who holds the job: null while it waits for a rider (or is offered again). */
  rider_id: string | null;
  active_delivery_id: string | null;
  lat: number | null;
  lng: number | null;
  view: JobViewRead;
}

/**
 * A job riders may take: one waiting for its first rider, or one an operator took from its rider
 * (it keeps its status; nobody holds it) and offers again.
 */
const OFFERABLE = `(d.status = 'pending' or (d.rider_id is null and d.status in ('accepted', 'picked_up', 'in_transit')))`;

/**
 * Offers a job to the nearest riders near its pickup who have not had it yet: the grid cells the
 * radius's box touches first (an index that position pings leave alone, so they stay HOT
 * updates), then the box, then the exact great-circle distance, nearest first. The cells are
 * read one band (row of cells) at a time, an index range scan each (`offset 0` keeps each band
 * its own scan): a list of a wide round's 3,000 cells cost PostgreSQL milliseconds to plan.
 * The job's offers so far are read once (`not in`, a hashed subplan; `rider_id` is never null),
 * not once a rider. A round that runs as the job is taken or cancelled offers nothing new. Only
 * riders whose app sent a position within the freshness window are offered a job: a rider whose
 * app was killed stays `online` until the street watch sets them offline. A job offered again after
 * its rider went silent reopens the withdrawn offers of the riders near it, never the silent rider's.
 */
const OFFER = {
  name: 'offer-to-nearest-riders',
  text: `
    insert into rider_offers (delivery_id, rider_id, expires_at)
    select $1, near.id, $2::timestamptz from (
      select r.id, 6371.0088 * 2 * asin(sqrt(power(sin(radians(r.lat - $7) / 2), 2)
          + cos(radians($7)) * cos(radians(r.lat)) * power(sin(radians(r.lng - $8) / 2), 2))) as km
      from unnest($10::integer[], $11::integer[]) as band(first_cell, last_cell)
      cross join lateral (
        select r.id, r.lat, r.lng from riders r
        where r.cell between band.first_cell and band.last_cell
          and r.online and not r.is_robo and r.active_delivery_id is null
          and r.lat between $3 and $4 and r.lng between $5 and $6
          and r.located_at > now() - make_interval(secs => $13)
        offset 0) r
      where r.id not in (select o.rider_id from rider_offers o where o.delivery_id = $1 and o.expires_at > now())
        and r.id is distinct from $14::uuid
    ) near
    where near.km <= $9 and exists (select 1 from deliveries d where d.id = $1 and ${OFFERABLE})
    order by near.km limit $12
    on conflict (delivery_id, rider_id) do update set expires_at = excluded.expires_at where rider_offers.expires_at <= now()`,
};

/**
 * Riders a round of dispatch offers the job to, at most: in a busy city the radius holds hundreds
 * of free riders, and offering it to them all costs a row each (and a withdrawal each on accept)
 * for a job the nearest few take. Each wider round offers it to the next nearest.
 */
export const OFFERS_PER_ROUND = 20;

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
         where o.rider_id = $1 and o.expires_at > now() and ${OFFERABLE}
           and r.online and r.active_delivery_id is null
         order by o.created_at desc limit 50`,
};

const TO_ACCEPT = {
  name: 'rider-offer-to-accept-with-view',
  text: `select d.status, d.rider_id, r.active_delivery_id, r.lat, r.lng,
           ${JOB_VIEW_JSON} as job, ${JOB_RECIPIENTS_JSON} as recipients, r.phone as rider_phone
         from rider_offers o join deliveries d on d.id = o.delivery_id join riders r on r.id = o.rider_id
         where o.delivery_id = $1 and o.rider_id = $2`,
};

/**
 * How far dispatch looks first. In a busy city the 20 nearest free riders are well within it
 * (at 7 free riders a km², about 50 are), so a round reads the hundred or so riders of the cells
 * around it instead of the several hundred of a 3 km radius's; only where it holds fewer than a
 * round's riders does the round look on to its whole radius.
 */
export const NEAR_FIRST_KM = 1.5;

export interface OfferRound {
  deliveryId: string;
  pickup: LatLng;
  radiusKm: number;
  expiresAt: string;
  /** Only riders whose last position is at most this old. */
  freshSeconds: number;
  /** A rider never to offer it to: the one an operator just took it from. */
  exceptRiderId?: string | null;
  limit?: number;
}

/**
 * Offers the job, until `expiresAt`, to the `limit` nearest online, free, live riders within
 * `radiusKm` of the pickup that it was not offered to yet; returns how many offers were made.
 * A full round within NEAR_FIRST_KM is the nearest there are: every rider outside it is farther.
 */
export async function offerToRidersNear(
  em: EntityManager,
  input: OfferRound,
): Promise<number> {
  const limit = input.limit ?? OFFERS_PER_ROUND;
  const nearFirstKm = Math.min(input.radiusKm, NEAR_FIRST_KM);
  const offered = await offerWithin(em, input, nearFirstKm, limit);
  if (offered === limit || nearFirstKm === input.radiusKm) return offered;
  return offered + (await offerWithin(em, input, input.radiusKm, limit - offered));
}

async function offerWithin(
  em: EntityManager,
  input: OfferRound,
  radiusKm: number,
  limit: number,
): Promise<number> {
  const { pickup } = input;
  const box = boxAround(pickup, radiusKm);
  const bands = cellBands(box);
  const { rowCount } = await poolQuery(em).query({
    ...OFFER,
    values: [
      input.deliveryId,
      input.expiresAt,
      box.south,
      box.north,
      box.west,
      box.east,
      pickup.lat,
      pickup.lng,
      radiusKm,
      bands.first,
      bands.last,
      limit,
      input.freshSeconds,
      input.exceptRiderId ?? null,
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
  type Row = Omit<OfferToAccept, 'view'> & { job: RiderJobView; recipients: JobRecipient[]; rider_phone: string | null };
  const { rows } = await poolQuery(em).query<Row>({ ...TO_ACCEPT, values: [deliveryId, riderId] });
  const row = rows[0];
  if (!row) return null;
  const { job, recipients, rider_phone: riderPhone, ...offer } = row;
  return { ...offer, view: { job, recipients, riderPhone } };
}
