import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { loadDelivery } from '../db/delivery-reads';
import { deliveryView, isoOffset } from '../domain/delivery-view';
import { eventNameFor, isTerminal, type DeliveryStatus } from '../domain/lifecycle';
import type { ActivityDeps } from './deps';
import { claimRiderIn } from './dispatch';
import { workerMetrics } from './metrics';

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
 * Writes a status change and freezes its webhook body, inside the caller's transaction, so the
 * body carries the Delivery exactly as it was at the change. Safe to retry: the event and
 * callback are unique per (delivery, status).
 */
export async function writeTransition(em: EntityManager, record: TransitionRecord, siteUrl: string): Promise<{ eventId: string | null }> {
  const { deliveryId, status, riderId, at } = record;
  let { lat, lng } = record;
  if ((lat === null || lng === null) && riderId) {
    const [rider] = await em.execute<{ lat: number | null; lng: number | null }[]>(
      'select lat, lng from riders where id = ?',
      [riderId],
    );
    lat = rider?.lat ?? null;
    lng = rider?.lng ?? null;
  }
  await em.execute(
    `update deliveries set status = ?, rider_id = coalesce(?, rider_id), updated_at = now(),
       delivered_at = case when ? = 'delivered' then ?::timestamptz else delivered_at end
     where id = ?`,
    [status, status === 'accepted' ? riderId : null, status, at, deliveryId],
  );
  await em.execute(
    `insert into delivery_events (delivery_id, status, lat, lng, created_at) values (?, ?, ?, ?, ?)
     on conflict (delivery_id, status) do nothing`,
    [deliveryId, status, lat, lng, at],
  );
  // A finished job frees its rider. Its offers are not deleted (riders list only those of pending
  // jobs), so a rider who was offered a job that is gone is told "taken" (409), not "never offered" (404).
  if (isTerminal(status)) {
    await em.execute('update riders set active_delivery_id = null where active_delivery_id = ?', [deliveryId]);
  }

  const event = eventNameFor(status);
  if (!event) return { eventId: null };
  const existing = await em.execute<{ id: string }[]>(
    'select id from webhook_events where delivery_id = ? and event = ?',
    [deliveryId, event],
  );
  if (existing[0]) return { eventId: existing[0].id };
  const parts = await loadDelivery(em, deliveryId);
  if (!parts) throw new Error(`Delivery ${deliveryId} was not found`);
  const { delivery } = parts;
  const body = JSON.stringify({
    event,
    delivery_id: deliveryId,
    status,
    occurred_at: isoOffset(at),
    data: deliveryView(parts, siteUrl),
  });
  const eventId = randomUUID();
  await em.execute(
    `insert into webhook_events (id, partner_id, mode, delivery_id, event, body, created_at)
     values (?, ?, ?, ?, ?, ?, ?)`,
    [eventId, delivery.partnerId, delivery.mode, deliveryId, event, body, at],
  );
  return { eventId };
}

export function createTransitionActivities({ orm, settings }: ActivityDeps) {
  return {
    /** A status change, recorded in one transaction (see writeTransition). */
    async recordTransition(record: TransitionRecord): Promise<{ eventId: string | null }> {
      const recorded = await orm.em.fork().transactional((em) => writeTransition(em, record, settings.siteUrl));
      workerMetrics.transition(record.status);
      return recorded;
    },

    /**
     * A rider's accept in one transaction: the rider is held to the job and `accepted` is written
     * with its webhook body, or neither happens (the rider already holds another job). One step
     * instead of claimRider then recordTransition: a round trip through the workflow fewer on the
     * path from the rider's tap to the partner's callback.
     */
    async acceptJob(accept: Omit<TransitionRecord, 'status'> & { riderId: string }): Promise<{ claimed: boolean; eventId: string | null }> {
      const record: TransitionRecord = { ...accept, status: 'accepted' };
      try {
        const accepted = await orm.em.fork().transactional(async (em) => {
          if (!(await claimRiderIn(em, record.deliveryId, accept.riderId))) return { claimed: false, eventId: null };
          return { claimed: true, ...(await writeTransition(em, record, settings.siteUrl)) };
        });
        if (accepted.claimed) workerMetrics.transition(record.status);
        return accepted;
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) return { claimed: false, eventId: null };
        throw error;
      }
    },

    /** An additional stop handed over (no webhook: the contract has no event for it). */
    async recordStopHandover(record: { deliveryId: string; index: number; at: string; photoKey: string | null }) {
      // The delivery's row is touched too: its version is what cached answers are checked against.
      await orm.em.fork().execute(
        `with stop as (
           update delivery_stops set status = 'delivered', delivered_at = coalesce(delivered_at, ?::timestamptz)
           where delivery_id = ? and position = ? returning delivery_id)
         update deliveries set updated_at = now() where id in (select delivery_id from stop)`,
        [record.at, record.deliveryId, record.index],
      );
    },
  };
}
