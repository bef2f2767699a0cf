import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DeliveryEventSchema,
  DeliverySchema,
  DeliveryStopSchema,
  RiderSchema,
  type Delivery,
  type DeliveryEvent,
  type DeliveryStop,
  type Rider,
} from './entities';
import type { DeliveryParts } from '../domain/delivery-view';

/**
 * Loads the parts of many deliveries in four queries whatever the page size (no N+1):
 * the deliveries, then their stops, events and riders by id.
 */
export async function loadDeliveryParts(em: EntityManager, deliveries: Delivery[]): Promise<DeliveryParts[]> {
  if (deliveries.length === 0) return [];
  const ids = deliveries.map((d) => d.id);
  const riderIds = [...new Set(deliveries.map((d) => d.riderId).filter((id): id is string => !!id))];
  const queries = [
    () => em.find(DeliveryStopSchema, { deliveryId: { $in: ids } }, { orderBy: { position: 'asc' } }),
    () => em.find(DeliveryEventSchema, { deliveryId: { $in: ids } }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
    () => (riderIds.length ? em.find(RiderSchema, { id: { $in: riderIds } }) : Promise.resolve([] as Rider[])),
  ] as const;
  // Inside a transaction there is one connection, which runs one query at a time.
  const [stops, events, riders] = em.isInTransaction()
    ? [await queries[0](), await queries[1](), await queries[2]()]
    : await Promise.all([queries[0](), queries[1](), queries[2]()]);
  const byDelivery = <T extends { deliveryId: string }>(rows: T[]) => {
    const map = new Map<string, T[]>();
    for (const row of rows) map.set(row.deliveryId, [...(map.get(row.deliveryId) ?? []), row]);
    return map;
  };
  const stopsOf = byDelivery<DeliveryStop>(stops);
  const eventsOf = byDelivery<DeliveryEvent>(events);
  const riderOf = new Map(riders.map((r) => [r.id, r]));
  return deliveries.map((delivery) => ({
    delivery,
    stops: stopsOf.get(delivery.id) ?? [],
    events: eventsOf.get(delivery.id) ?? [],
    rider: delivery.riderId ? (riderOf.get(delivery.riderId) ?? null) : null,
  }));
}

export async function loadDelivery(em: EntityManager, id: string): Promise<DeliveryParts | null> {
  const delivery = await em.findOne(DeliverySchema, { id });
  if (!delivery) return null;
  const [parts] = await loadDeliveryParts(em, [delivery]);
  return parts ?? null;
}
