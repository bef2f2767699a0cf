import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { deliveryView, isoOffset, type DeliveryParts } from '../domain/delivery-view';
import type { EtaFigures } from '../domain/eta';
import { canTransition, eventNameFor, isTerminal, type DeliveryStatus } from '../domain/lifecycle';
import { partsAfterStatusChange } from '../domain/status-change';
import { isUniqueViolation } from './errors';
import { poolQuery } from './pool-query';

/**
 * A delivery's status changes as the workflow records them: the row, its trail, the rider and
 * offers it frees, and the webhook event whose body is frozen at the change. Every delivery
 * records several, so they run on a client of the ORM's pool with named prepared statements.
 */

export interface TransitionRecord {
  deliveryId: string;
  status: DeliveryStatus;
  riderId: string | null;
  /** Where the change happened; the rider's last reported position when not given. */
  lat: number | null;
  lng: number | null;
  /** Workflow time of the change. */
  at: string;
  /** The photo of the hand-over that made the delivery `delivered`, when its proof is one. */
  photoKey?: string;
}

/**
 * The status change in ONE statement, so it is one round trip and its own transaction: the
 * delivery's row (its version moves, so kept answers are refreshed), the trail entry where it
 * happened (the rider's last reported position when the record has none), the ETA computed for
 * it, the rider freed when the job is finished, the job's hand-over codes forgotten then too
 * (their texts in the outbox and their hashes: nothing checks a code after the job ends, and a
 * code kept is a secret kept for nothing), the job's offers withdrawn when it leaves `pending`,
 * and the webhook event with its body, unless a try before this one wrote it (its id is answered
 * then). An accept first holds the rider to the job; when the rider holds another, nothing is
 * written (`ok` false).
 *
 * Withdrawn offers are expired, not deleted: a rider offered a job that is gone is told "taken"
 * (409), not "never offered" (404). Expired, they drop out of the range of the rider's offers
 * index that their list reads, so the list costs what the rider's live offers cost, not every
 * job offered to them in the dispatch window (15 minutes, in which a busy town offers one rider
 * hundreds).
 */
const WRITE_CHANGE = {
  name: 'transition-write-one-statement',
  text: `
    with claimed as (
      update riders set active_delivery_id = $1
      where $15::boolean and id = $3 and (active_delivery_id is null or active_delivery_id = $1) returning id),
    go as (select not $15::boolean or exists (select 1 from claimed) as ok),
    rider as (select lat, lng from riders where id = $3),
    existing as (select id from webhook_events where delivery_id = $1 and event = $8),
    changed as (
      update deliveries set status = $2::text,
        rider_id = case when $2::text = 'accepted' then coalesce($3, rider_id) else rider_id end,
        updated_at = now(),
        delivered_at = case when $2::text = 'delivered' then $4::timestamptz else delivered_at end
      where id = $1 and (select ok from go)),
    trail as (
      insert into delivery_events (delivery_id, status, lat, lng, created_at)
      select $1, $2::text,
        case when ($5::float8 is null or $6::float8 is null) and $3 is not null then (select lat from rider) else $5 end,
        case when ($5::float8 is null or $6::float8 is null) and $3 is not null then (select lng from rider) else $6 end,
        $4::timestamptz
      where (select ok from go)
      on conflict (delivery_id, status) do nothing),
    kept_eta as (
      insert into delivery_etas (delivery_id, eta_min, eta_legs_min, eta_times, computed_at)
      select $1, $10, $11::jsonb, $12::jsonb, now() where $10::integer is not null and (select ok from go)
      on conflict (delivery_id) do update
        set eta_min = excluded.eta_min, eta_legs_min = excluded.eta_legs_min, eta_times = excluded.eta_times, computed_at = excluded.computed_at),
    freed as (update riders set active_delivery_id = null where $7::boolean and active_delivery_id = $1),
    texts as (delete from sms_outbox where $7::boolean and delivery_id = $1),
    codes as (delete from delivery_otps where $7::boolean and delivery_id = $1),
    withdrawn as (update rider_offers set expires_at = now() where $9::boolean and (select ok from go) and delivery_id = $1 and expires_at > now()),
    event as (
      insert into webhook_events (id, partner_id, mode, delivery_id, event, body, created_at)
      select $13, d.partner_id, d.mode, $1, $8, $14, $4::timestamptz from deliveries d
      where d.id = $1 and $8::text is not null and (select ok from go) and not exists (select 1 from existing)
      returning id)
    select (select ok from go) as ok, coalesce((select id from existing), (select id from event)) as event_id`,
};

/**
 * Writes a status change and its webhook event in one statement (WRITE_CHANGE). The body is the
 * Delivery as the change leaves it, built from `before` (its parts read for the change) with
 * the change applied (domain/status-change.ts), so it carries the ETA computed for it when there
 * is one. Safe to retry: the trail entry and the event are unique per (delivery, status).
 */
async function writeChange(
  em: EntityManager,
  change: TransitionRecord,
  before: DeliveryParts,
  siteUrl: string,
  eta: EtaFigures | null,
  claim: boolean,
): Promise<{ ok: boolean; eventId: string | null }> {
  const { deliveryId, status, riderId, lat, lng, at } = change;
  const event = eventNameFor(status);
  const body = event
    ? JSON.stringify({ event, delivery_id: deliveryId, status, occurred_at: isoOffset(at), data: deliveryView(partsAfterStatusChange(before, change, eta), siteUrl) })
    : null;
  const { rows } = await poolQuery(em).query<{ ok: boolean; event_id: string | null }>({
    ...WRITE_CHANGE,
    values: [
      deliveryId,
      status,
      riderId,
      at,
      lat,
      lng,
      isTerminal(status),
      event,
      canTransition('pending', status),
      eta?.finalMin ?? null,
      eta ? JSON.stringify(eta.legsMin) : null,
      eta ? JSON.stringify(eta.times) : null,
      randomUUID(),
      body,
      claim,
    ],
  });
  return { ok: rows[0]!.ok, eventId: rows[0]!.event_id };
}

/** A status change, recorded in one statement (see writeChange). */
export async function record(
  em: EntityManager,
  change: TransitionRecord,
  before: DeliveryParts,
  siteUrl: string,
  eta: EtaFigures | null = null,
): Promise<{ eventId: string | null }> {
  const { eventId } = await writeChange(em, change, before, siteUrl, eta, false);
  return { eventId };
}

/**
 * A rider's accept in one statement: the rider is held to the job and `accepted` is written
 * with its webhook body, or neither happens (`claimed: false`: the rider holds another job, or
 * an accept of another job took them at the same moment). `before` is read with the accepting
 * rider (deliveries.readForChange).
 */
export async function recordAccept(
  em: EntityManager,
  accept: Omit<TransitionRecord, 'status'> & { riderId: string },
  before: DeliveryParts,
  siteUrl: string,
  eta: EtaFigures | null = null,
): Promise<{ claimed: boolean; eventId: string | null }> {
  try {
    const { ok, eventId } = await writeChange(em, { ...accept, status: 'accepted' }, before, siteUrl, eta, true);
    return { claimed: ok, eventId: ok ? eventId : null };
  } catch (error) {
    if (isUniqueViolation(error)) return { claimed: false, eventId: null };
    throw error;
  }
}

/**
 * An additional stop handed over, and where: the rider's position at the step, else their last
 * reported one. The delivery's row is touched too: its version is what cached answers are
 * checked against.
 */
export async function recordStopHandover(
  em: EntityManager,
  handover: { deliveryId: string; index: number; at: string; lat?: number | null; lng?: number | null },
): Promise<void> {
  const given = handover.lat != null && handover.lng != null;
  await em.execute(
    `with stop as (
       update delivery_stops s set status = 'delivered', delivered_at = coalesce(s.delivered_at, ?::timestamptz),
         handover_lat = coalesce(s.handover_lat, case when ?::boolean then ?::float8 else r.lat end),
         handover_lng = coalesce(s.handover_lng, case when ?::boolean then ?::float8 else r.lng end)
       from deliveries d left join riders r on r.id = d.rider_id
       where s.delivery_id = ? and s.position = ? and d.id = s.delivery_id returning s.delivery_id)
     update deliveries set updated_at = now() where id in (select delivery_id from stop)`,
    [handover.at, given, handover.lat ?? null, given, handover.lng ?? null, handover.deliveryId, handover.index],
  );
}
