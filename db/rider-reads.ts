import type { EntityManager } from '@mikro-orm/postgresql';
import { poolQuery } from './pool-query';

/**
 * The rider app's reads and its position write. An online rider's app pings its position and
 * polls its offers every few seconds, and each step of a job reads the job twice, so these are
 * named prepared statements on a client of the ORM's pool (parsed and planned once per
 * connection, no ORM layer per call), like the delivery version in delivery-reads.ts.
 */

export interface RiderPosition {
  lat: number | null;
  lng: number | null;
}

/** What a rider's step decides on about its job: one the rider holds, or was offered and nobody holds. */
export interface JobForStep {
  id: string;
  status: string;
  verificationMethod: string;
}

/** The rider app's view of a job (DESIGN section 10). */
export interface RiderJobView {
  delivery_id: string;
  reference: string;
  status: string;
  stops: Record<string, unknown>[];
  [field: string]: unknown;
}

/** What the accept decides on: the job's status, whether the rider is busy, and where the rider is. */
export interface OfferToAccept extends RiderPosition {
  status: string;
  active_delivery_id: string | null;
}

export interface OfferRow {
  id: string;
  pickup_address: string;
  pickup_lat: number;
  pickup_lng: number;
  dropoff_address: string;
  package_size: string;
  distance_m: number;
  stops_count: string;
  expires_at: Date;
}

/** Postgres builds the job view, stops in visiting order, so it costs one round trip. */
const JOB_VIEW = {
  name: 'rider-job-view',
  text: `
    select json_build_object(
      'delivery_id', d.id, 'reference', d.reference, 'status', d.status,
      'pickup_address', d.pickup_address, 'pickup_lat', d.pickup_lat, 'pickup_lng', d.pickup_lng,
      'dropoff_address', d.dropoff_address, 'dropoff_lat', d.dropoff_lat, 'dropoff_lng', d.dropoff_lng,
      'recipient_name', d.recipient_name, 'recipient_phone', d.recipient_phone,
      'package_size', d.package_size, 'package_description', d.package_description,
      'verification_method', d.verification_method,
      'stops', coalesce((
        select json_agg(json_build_object(
          'index', s.position, 'dropoff_address', s.dropoff_address, 'dropoff_lat', s.dropoff_lat,
          'dropoff_lng', s.dropoff_lng, 'recipient_name', s.recipient_name, 'recipient_phone', s.recipient_phone,
          'package_size', s.package_size, 'package_description', s.package_description, 'status', s.status
        ) order by s.position)
        from delivery_stops s where s.delivery_id = d.id
      ), '[]'::json)
    ) as job
    from deliveries d where d.id = $1`,
};

const JOB_FOR_STEP = {
  name: 'rider-job-for-step',
  text: `select d.id, d.rider_id, d.status, d.verification_method, r.lat, r.lng,
           exists(select 1 from rider_offers o where o.delivery_id = $1 and o.rider_id = $2) as offered
         from riders r left join deliveries d on d.id = $1 where r.id = $2`,
};

const OFFERS = {
  name: 'rider-offers',
  text: `select d.id, d.pickup_address, d.pickup_lat, d.pickup_lng, d.dropoff_address, d.package_size, d.distance_m,
           (select count(*) from delivery_stops s where s.delivery_id = d.id) as stops_count, o.expires_at
         from rider_offers o join deliveries d on d.id = o.delivery_id join riders r on r.id = o.rider_id
         where o.rider_id = $1 and o.expires_at > now() and d.status = 'pending'
           and r.online and r.active_delivery_id is null
         order by o.created_at desc limit 50`,
};

const OFFER_TO_ACCEPT = {
  name: 'rider-offer-to-accept',
  text: `select d.status, r.active_delivery_id, r.lat, r.lng
         from rider_offers o join deliveries d on d.id = o.delivery_id join riders r on r.id = o.rider_id
         where o.delivery_id = $1 and o.rider_id = $2`,
};

const RECORD_POSITION = {
  name: 'rider-record-position',
  text: 'update riders set lat = $1, lng = $2, located_at = now() where id = $3',
};

export async function riderJobView(em: EntityManager, deliveryId: string): Promise<RiderJobView | null> {
  const { rows } = await poolQuery(em).query<{ job: RiderJobView }>({ ...JOB_VIEW, values: [deliveryId] });
  return rows[0]?.job ?? null;
}

/**
 * The job if this rider holds it, or was offered it while no rider holds it (else null), and where
 * the rider last was, in one round trip. An offered job is the rider's to see, so a step taken
 * before the accept is out of order (400 with the status), not unknown; its status is never one
 * a step needs, so the step is refused before it reaches the workflow.
 */
export async function findJobForStep(em: EntityManager, deliveryId: string, riderId: string): Promise<{ job: JobForStep | null; position: RiderPosition }> {
  const { rows } = await poolQuery(em).query<{
    id: string | null;
    rider_id: string | null;
    status: string;
    verification_method: string;
    lat: number | null;
    lng: number | null;
    offered: boolean;
  }>({ ...JOB_FOR_STEP, values: [deliveryId, riderId] });
  const row = rows[0];
  const position = { lat: row?.lat ?? null, lng: row?.lng ?? null };
  if (!row?.id || !(row.rider_id === riderId || (row.rider_id === null && row.offered))) return { job: null, position };
  return { job: { id: row.id, status: row.status, verificationMethod: row.verification_method }, position };
}

/**
 * Open offers to this rider of jobs still waiting for one, newest first; none while the rider is
 * offline or holds a job (DESIGN section 10: one active job), since taking one would be refused.
 * Offers still open show again once the rider is free and online.
 */
export async function riderOffers(em: EntityManager, riderId: string): Promise<OfferRow[]> {
  return (await poolQuery(em).query<OfferRow>({ ...OFFERS, values: [riderId] })).rows;
}

/** The offer of a job to this rider (null when there is none), the job's status, whether the rider is busy, and where. */
export async function offerToAccept(
  em: EntityManager,
  deliveryId: string,
  riderId: string,
): Promise<OfferToAccept | null> {
  const { rows } = await poolQuery(em).query<OfferToAccept>({
    ...OFFER_TO_ACCEPT,
    values: [deliveryId, riderId],
  });
  return rows[0] ?? null;
}

/** A position ping. Pings go to Postgres only; they never enter workflow history. */
export async function recordRiderPosition(em: EntityManager, riderId: string, lat: number, lng: number): Promise<void> {
  await poolQuery(em).query({ ...RECORD_POSITION, values: [lat, lng, riderId] });
}
