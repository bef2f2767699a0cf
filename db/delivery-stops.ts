import type { EntityManager } from '@mikro-orm/postgresql';
import { DeliveryStopSchema, type DeliveryStop } from './entities';

/** The additional stops of multi-drop deliveries, as the rider's steps and the hand-over codes read them. */

/** Every additional stop of the delivery, in visiting order. */
export function list(em: EntityManager, deliveryId: string): Promise<DeliveryStop[]> {
  return em.find(DeliveryStopSchema, { deliveryId }, { orderBy: { position: 'asc' } });
}

/** The stop at `position` and the ones before it, in visiting order. */
export function upTo(em: EntityManager, deliveryId: string, position: number): Promise<DeliveryStop[]> {
  return em.find(DeliveryStopSchema, { deliveryId, position: { $lte: position } }, { orderBy: { position: 'asc' } });
}

/** How many stops are still to be handed over. */
export function countPending(em: EntityManager, deliveryId: string): Promise<number> {
  return em.count(DeliveryStopSchema, { deliveryId, status: 'pending' });
}

/** The stop's status; null when the delivery has no such stop. */
export async function statusOf(em: EntityManager, deliveryId: string, position: number): Promise<string | null> {
  const [stop] = await em.execute<{ status: string }[]>('select status from delivery_stops where delivery_id = ? and position = ?', [
    deliveryId,
    position,
  ]);
  return stop?.status ?? null;
}
