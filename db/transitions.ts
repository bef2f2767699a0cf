import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { deliveryView, isoOffset } from '../domain/delivery-view';
import type { EtaFigures } from '../domain/eta';
import { saveWithChange } from './delivery-eta';
import { canTransition, eventNameFor, isTerminal, type DeliveryStatus } from '../domain/lifecycle';
import { readVersioned } from './deliveries';
import { isUniqueViolation } from './errors';
import { poolTransaction, type PoolQuery } from './pool-query';
import { claimJob } from './riders';

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
}

/**
 * The status change in one statement: the delivery's row (its version moves, so cached answers
 * are refreshed), the trail entry where it happened (the rider's last reported position when
 * the record has none), the rider freed when the job is finished, the job's hand-over codes
 * forgotten then too (their texts in the outbox and their hashes: nothing checks a code after the
 * job ends, and a code kept is a secret kept for nothing), the job's offers withdrawn when it
 * leaves `pending`, and the webhook event's id when a retry already wrote it.
 *
 * Withdrawn offers are expired, not deleted: a rider offered a job that is gone is told "taken"
 * (409), not "never offered" (404). Expired, they drop out of the range of the rider's offers
 * index that their list reads, so the list costs what the rider's live offers cost, not every
 * job offered to them in the dispatch window (15 minutes, in which a busy town offers one rider
 * hundreds).
 */
const WRITE_CHANGE = {
  name: 'transition-write',
  text: `
    with rider as (select lat, lng from riders where id = $3),
    changed as (
      update deliveries set status = $2::text,
        rider_id = case when $2::text = 'accepted' then coalesce($3, rider_id) else rider_id end,
        updated_at = now(),
        delivered_at = case when $2::text = 'delivered' then $4::timestamptz else delivered_at end
      where id = $1),
    trail as (
      insert into delivery_events (delivery_id, status, lat, lng, created_at)
      values ($1, $2::text,
        case when ($5::float8 is null or $6::float8 is null) and $3 is not null then (select lat from rider) else $5 end,
        case when ($5::float8 is null or $6::float8 is null) and $3 is not null then (select lng from rider) else $6 end,
        $4::timestamptz)
      on conflict (delivery_id, status) do nothing),
    freed as (update riders set active_delivery_id = null where $7::boolean and active_delivery_id = $1),
    texts as (delete from sms_outbox where $7::boolean and delivery_id = $1),
    codes as (delete from delivery_otps where $7::boolean and delivery_id = $1),
    withdrawn as (update rider_offers set expires_at = now() where $9::boolean and delivery_id = $1 and expires_at > now())
    select id from webhook_events where delivery_id = $1 and event = $8`,
};

const INSERT_EVENT = {
  name: 'transition-webhook-event',
  text: `insert into webhook_events (id, partner_id, mode, delivery_id, event, body, created_at) values ($1, $2, $3, $4, $5, $6, $7)`,
};

/**
 * Writes a status change and freezes its webhook body, inside the caller's transaction, so the
 * body carries the Delivery exactly as it was at the change, with the ETA computed for it when
 * there is one. Safe to retry: the event and callback are unique per (delivery, status).
 */
async function writeTransition(tx: PoolQuery, record: TransitionRecord, siteUrl: string, eta: EtaFigures | null): Promise<{ eventId: string | null }> {
  const { deliveryId, status, riderId, lat, lng, at } = record;
  const event = eventNameFor(status);
  const { rows: existing } = await tx.query<{ id: string }>({
    ...WRITE_CHANGE,
    values: [deliveryId, status, riderId, at, lat, lng, isTerminal(status), event, canTransition('pending', status)],
  });
  if (eta) await saveWithChange(tx, deliveryId, eta);
  if (!event) return { eventId: null };
  if (existing[0]) return { eventId: existing[0].id };
  const read = await readVersioned(tx, deliveryId);
  if (!read) throw new Error(`Delivery ${deliveryId} was not found`);
  const { parts } = read;
  const body = JSON.stringify({
    event,
    delivery_id: deliveryId,
    status,
    occurred_at: isoOffset(at),
    data: deliveryView(parts, siteUrl),
  });
  const eventId = randomUUID();
  await tx.query({ ...INSERT_EVENT, values: [eventId, parts.delivery.partnerId, parts.delivery.mode, deliveryId, event, body, at] });
  return { eventId };
}

/** A status change, recorded in one transaction (see writeTransition). */
export function record(em: EntityManager, change: TransitionRecord, siteUrl: string, eta: EtaFigures | null = null): Promise<{ eventId: string | null }> {
  return poolTransaction(em, (tx) => writeTransition(tx, change, siteUrl, eta));
}

/**
 * A rider's accept in one transaction: the rider is held to the job and `accepted` is written
 * with its webhook body, or neither happens (`claimed: false`: the rider holds another job, or
 * an accept of another job took them at the same moment).
 */
export async function recordAccept(
  em: EntityManager,
  accept: Omit<TransitionRecord, 'status'> & { riderId: string },
  siteUrl: string,
  eta: EtaFigures | null = null,
): Promise<{ claimed: boolean; eventId: string | null }> {
  const change: TransitionRecord = { ...accept, status: 'accepted' };
  try {
    return await poolTransaction(em, async (tx) => {
      if (!(await claimJob(tx, change.deliveryId, accept.riderId))) return { claimed: false, eventId: null };
      return { claimed: true, ...(await writeTransition(tx, change, siteUrl, eta)) };
    });
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
