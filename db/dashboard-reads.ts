import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyMode } from '../domain/api-key';
import type { DeliveryStatus } from '../domain/lifecycle';
import { DeliverySchema, type Delivery } from './entities';
import type { WebhookEventRow } from './webhook-events';

/**
 * What the partner dashboard's pages list beyond what the API lists too: the overview's
 * progress, a page of deliveries, a delivery's callbacks and the references a callback log names.
 */

/** How far an account is on the way to its first delivery, in the mode shown. */
export async function accountProgress(
  em: EntityManager,
  partnerId: string,
  mode: KeyMode,
): Promise<{ keys: number; accounts: number; webhookUrl: string | null; deliveries: number }> {
  const [row] = await em.execute<{ keys: string; accounts: string; webhook_url: string | null; deliveries: string }[]>(
    `select
         (select count(*) from api_keys where partner_id = ? and mode = ? and revoked_at is null) as keys,
         (select count(*) from payment_methods where partner_id = ? and mode = ? and deleted_at is null) as accounts,
         (select url from webhook_endpoints where partner_id = ? and mode = ?) as webhook_url,
         (select count(*) from deliveries where partner_id = ? and mode = ?) as deliveries`,
    Array(4).fill([partnerId, mode]).flat(),
  );
  return {
    keys: Number(row?.keys ?? 0),
    accounts: Number(row?.accounts ?? 0),
    webhookUrl: row?.webhook_url ?? null,
    deliveries: Number(row?.deliveries ?? 0),
  };
}

/** A page of deliveries, newest first, of one status or all. */
export async function listDeliveries(
  em: EntityManager,
  query: { partnerId: string; mode: KeyMode; status: DeliveryStatus | null; limit: number; offset: number },
): Promise<Delivery[]> {
  return em.find(
    DeliverySchema,
    { partnerId: query.partnerId, mode: query.mode, ...(query.status ? { status: query.status } : {}) },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: query.limit, offset: query.offset },
  );
}

/** Every callback about one of the partner's deliveries, newest first. */
export async function webhookEventsOfDelivery(em: EntityManager, deliveryId: string, partnerId: string): Promise<WebhookEventRow[]> {
  return em.execute<WebhookEventRow[]>(
    `select id, event, delivery_id, state, created_at from webhook_events where delivery_id = ? and partner_id = ?
       order by created_at desc, id desc`,
    [deliveryId, partnerId],
  );
}

/** Delivery id → reference, for the deliveries a page of callbacks names. */
export async function deliveryReferences(em: EntityManager, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await em.execute<{ id: string; reference: string }[]>(
    `select id, reference from deliveries where id in (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  return new Map(rows.map((r) => [r.id, r.reference] as const));
}
