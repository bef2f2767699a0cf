import type { EntityManager } from '@mikro-orm/postgresql';
import { v5 as nameBasedUuid } from 'uuid';
import type { LatLng } from '../domain/geo';
import type { DeliveryStatus, VerificationMethod } from '../domain/lifecycle';
import type { DeliverySnapshot } from '../domain/steps';
import { poolQuery } from './pool-query';
import { COMMIT_WITHOUT_WAITING_FOR_DISK } from './lossy-commit';

/**
 * Riders: their token, availability, position and the one job each holds, and the rider app's
 * reads of its jobs. An online rider's app pings its position every few seconds, and each step
 * of a job reads the job twice, so those are named prepared statements on a client of the ORM's
 * pool (parsed and planned once per connection, no ORM layer per call), like the delivery
 * version in deliveries.ts.
 */

export interface RiderPosition {
  lat: number | null;
  lng: number | null;
}

/**
 * What a rider's step decides on about its job (one the rider holds, or was offered and nobody
 * holds): the read model's snapshot of it, for the rules of domain/steps.ts.
 */
export interface JobForStep extends DeliverySnapshot {
  id: string;
}

/** The rider app's view of a job (DESIGN section 10). */
export interface RiderJobView {
  delivery_id: string;
  reference: string;
  status: string;
  stops: Record<string, unknown>[];
  [field: string]: unknown;
}

/**
 * Whom the job's recipients are reached on: the final drop (`FINAL_DROP`, -1) and each stop by
 * its index. Kept out of the view itself: the rider is given a masked number, never these.
 */
export interface JobRecipient {
  index: number;
  phone: string;
}

/** The job view of the delivery `d`, stops in visiting order, built by Postgres. */
export const JOB_VIEW_JSON = `json_build_object(
      'delivery_id', d.id, 'reference', d.reference, 'status', d.status,
      'pickup_address', d.pickup_address, 'pickup_lat', d.pickup_lat, 'pickup_lng', d.pickup_lng,
      'dropoff_address', d.dropoff_address, 'dropoff_lat', d.dropoff_lat, 'dropoff_lng', d.dropoff_lng,
      'recipient_name', d.recipient_name,
      'package_size', d.package_size, 'package_description', d.package_description,
      'verification_method', d.verification_method,
      'stops', coalesce((
        select json_agg(json_build_object(
          'index', s.position, 'dropoff_address', s.dropoff_address, 'dropoff_lat', s.dropoff_lat,
          'dropoff_lng', s.dropoff_lng, 'recipient_name', s.recipient_name,
          'package_size', s.package_size, 'package_description', s.package_description, 'status', s.status
        ) order by s.position)
        from delivery_stops s where s.delivery_id = d.id
      ), '[]'::json)
    )`;

/** Whom the job's recipients of `d` are reached on, the final drop first. */
export const JOB_RECIPIENTS_JSON = `json_build_array(json_build_object('index', -1, 'phone', d.recipient_phone)) :: jsonb || coalesce((
      select jsonb_agg(jsonb_build_object('index', s.position, 'phone', s.recipient_phone) order by s.position)
      from delivery_stops s where s.delivery_id = d.id
    ), '[]'::jsonb)`;

/** Postgres builds the job view, so it costs one round trip. */
const JOB_VIEW = {
  name: 'rider-job-view-masked-phone',
  text: `
    select ${JOB_VIEW_JSON} as job, ${JOB_RECIPIENTS_JSON} as recipients,
    (select r.phone from riders r where r.id = d.rider_id) as rider_phone
    from deliveries d where d.id = $1`,
};

/** What a step decides on, and the job view it answers with once the workflow has taken it. */
const JOB_FOR_STEP = {
  name: 'rider-job-for-step-with-view',
  text: `select d.id, d.rider_id, d.status, d.verification_method, r.lat, r.lng,
           exists(select 1 from rider_offers o where o.delivery_id = $1 and o.rider_id = $2) as offered,
           st.total as stops_total, st.done as stops_completed,
           case when d.id is not null then ${JOB_VIEW_JSON} end as job,
           case when d.id is not null then ${JOB_RECIPIENTS_JSON} end as recipients, r.phone as rider_phone
         from riders r left join deliveries d on d.id = $1
         cross join lateral (select count(*)::int as total, (count(*) filter (where s.status = 'delivered'))::int as done
                             from delivery_stops s where s.delivery_id = $1) st
         where r.id = $2`,
};

/**
 * Many riders' latest positions in one statement: every API process writes the pings it took in
 * the last few milliseconds together, one transaction instead of one a ping. Its commit does not
 * wait for the disk: a crash may lose the last positions, which the next pings replace.
 */
const RECORD_POSITIONS = {
  name: 'rider-record-positions',
  text: `update riders r set lat = p.lat, lng = p.lng, located_at = now()
         from unnest($1::uuid[], $2::float8[], $3::float8[]) as p(id, lat, lng), ${COMMIT_WITHOUT_WAITING_FOR_DISK}
         where r.id = p.id`,
};

/** The job as the rider app shows it, and its recipients' numbers for masking. */
export interface JobViewRead {
  job: RiderJobView;
  recipients: JobRecipient[];
  riderPhone: string | null;
}

/** The job view of a delivery; null when there is no such delivery. */
export async function jobView(em: EntityManager, deliveryId: string): Promise<JobViewRead | null> {
  const { rows } = await poolQuery(em).query<{ job: RiderJobView; recipients: JobRecipient[]; rider_phone: string | null }>({
    ...JOB_VIEW,
    values: [deliveryId],
  });
  const row = rows[0];
  return row ? { job: row.job, recipients: row.recipients, riderPhone: row.rider_phone } : null;
}

/**
 * The job if this rider holds it, or was offered it while no rider holds it (else null), where
 * the rider last was, and the job's view to answer the step with, in one round trip. An offered
 * job is the rider's to see, so a step taken before the accept is out of order (400 with the
 * status), not unknown; its status is never one a step needs, so the step is refused before it
 * reaches the workflow.
 */
export async function jobForStep(
  em: EntityManager,
  deliveryId: string,
  riderId: string,
): Promise<{ job: JobForStep | null; position: RiderPosition; view: JobViewRead | null }> {
  const { rows } = await poolQuery(em).query<{
    id: string | null;
    rider_id: string | null;
    status: string;
    verification_method: string;
    lat: number | null;
    lng: number | null;
    offered: boolean;
    stops_total: number;
    stops_completed: number;
    job: RiderJobView | null;
    recipients: JobRecipient[] | null;
    rider_phone: string | null;
  }>({ ...JOB_FOR_STEP, values: [deliveryId, riderId] });
  const row = rows[0];
  const position = { lat: row?.lat ?? null, lng: row?.lng ?? null };
  if (!row?.id || !row.job || !(row.rider_id === riderId || (row.rider_id === null && row.offered))) return { job: null, position, view: null };
  const job: JobForStep = {
    id: row.id,
    status: row.status as DeliveryStatus,
    verificationMethod: row.verification_method as VerificationMethod,
    riderId: row.rider_id,
    stopsTotal: row.stops_total,
    stopsCompleted: row.stops_completed,
  };
  return { job, position, view: { job: row.job, recipients: row.recipients ?? [], riderPhone: row.rider_phone } };
}

/** Position pings, the latest of each rider. Pings go to Postgres only; they never enter workflow history. */
export async function setPositions(em: EntityManager, positions: Map<string, LatLng>): Promise<void> {
  const ids = [...positions.keys()];
  const points = [...positions.values()];
  await poolQuery(em).query({ ...RECORD_POSITIONS, values: [ids, points.map((p) => p.lat), points.map((p) => p.lng)] });
}

/**
 * The rider whose token hashes to `tokenHash`, whether that token has expired and when it
 * expires; null when no rider has it.
 */
export async function findByTokenHash(
  em: EntityManager,
  tokenHash: string,
): Promise<{ riderId: string; expired: boolean; expiresAt: Date | null } | null> {
  const [row] = await em.execute<{ id: string; expired: boolean; token_expires_at: Date | string | null }[]>(
    'select id, coalesce(token_expires_at <= now(), true) as expired, token_expires_at from riders where token_hash = ?',
    [tokenHash],
  );
  if (!row) return null;
  return { riderId: row.id, expired: row.expired, expiresAt: row.token_expires_at === null ? null : new Date(row.token_expires_at) };
}

/**
 * The riders whose token was issued again or revoked since `since` (the database's clock; null:
 * the last few seconds), and the database's time now, to pass as `since` next time. Read a few
 * seconds further back than asked: a change is stamped when its transaction starts, and may
 * commit a moment later than a read that missed it.
 */
const TOKENS_CHANGED = {
  name: 'rider-tokens-changed',
  text: `select now() as now,
           array(select id from riders where token_changed_at >= coalesce($1::timestamptz, now()) - interval '5 seconds') as rider_ids`,
};

export async function tokensChangedSince(em: EntityManager, since: Date | null): Promise<{ riderIds: string[]; now: Date }> {
  const { rows } = await poolQuery(em).query<{ now: Date | string; rider_ids: string[] }>({ ...TOKENS_CHANGED, values: [since] });
  return { riderIds: rows[0]!.rider_ids, now: new Date(rows[0]!.now) };
}

/**
 * Gives the rider a new token (by its hash) valid for `days`; the old one stops working at once in
 * Postgres, and in every API process's cache within a second (`tokensChangedSince`). False when
 * there is no such rider (robo riders have no token to rotate).
 */
export async function replaceToken(em: EntityManager, riderId: string, tokenHash: string, days: number): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `update riders set token_hash = ?, token_expires_at = now() + make_interval(days => ?), token_changed_at = now()
     where id = ? and not is_robo returning id`,
    [tokenHash, days, riderId],
  );
  return rows.length === 1;
}

/** Leaves the rider without a token; false when there is no such rider. */
export async function revokeToken(em: EntityManager, riderId: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `update riders set token_hash = null, token_expires_at = null, token_changed_at = now(), online = false, offline_reason = 'signed_out'
     where id = ? and not is_robo returning id`,
    [riderId],
  );
  return rows.length === 1;
}

/** The rider's own switch: whatever the service had set offline (and why) gives way to it. */
export async function setOnline(em: EntityManager, riderId: string, online: boolean): Promise<void> {
  await em.execute('update riders set online = ?, offline_reason = null where id = ?', [online, riderId]);
}

/** Whether the rider is online, and why the service set them offline if it did (null when the rider did). */
export async function availability(em: EntityManager, riderId: string): Promise<{ online: boolean; offline_reason: string | null } | null> {
  const [row] = await em.execute<{ online: boolean; offline_reason: string | null }[]>('select online, offline_reason from riders where id = ?', [riderId]);
  return row ?? null;
}

/** The job the rider holds; null when they hold none (or there is no such rider). */
export async function activeDeliveryId(em: EntityManager, riderId: string): Promise<string | null> {
  const [row] = await em.execute<{ active_delivery_id: string | null }[]>('select active_delivery_id from riders where id = ?', [riderId]);
  return row?.active_delivery_id ?? null;
}

/** The namespace of sandbox riders' name-based ids (a random UUID, fixed once). */
const SANDBOX_RIDER_NAMESPACE = '6f1d7c2e-3b0a-4c55-9e8d-2a41b7f0c913';

/**
 * A test delivery's sandbox rider id (the robo rider's, or the one its partner drives): its own
 * UUID, never the delivery's (a partner would read one id naming two things), and the same on
 * every try, derived from the delivery id.
 */
export function sandboxRiderId(deliveryId: string): string {
  return nameBasedUuid(deliveryId, SANDBOX_RIDER_NAMESPACE);
}

/**
 * A test delivery's sandbox rider, online where it starts; enlisting it again changes nothing. It
 * is a robo row (`is_robo`): never offered a live job, given a token, watched or reassigned.
 */
export async function enlistRobo(em: EntityManager, robo: { id: string; name: string; position: LatLng }): Promise<void> {
  await em.execute(
    `insert into riders (id, name, vehicle, rating, is_robo, online, lat, lng, located_at)
     values (?, ?, 'Test motorbike', 5, true, true, ?, ?, now()) on conflict (id) do nothing`,
    [robo.id, robo.name, robo.position.lat, robo.position.lng],
  );
}

/** A robo rider's position, as a rider app's ping would set it. */
export async function moveRobo(em: EntityManager, riderId: string, position: LatLng): Promise<void> {
  await em.execute('update riders set lat = ?, lng = ?, located_at = now() where id = ?', [position.lat, position.lng, riderId]);
}
