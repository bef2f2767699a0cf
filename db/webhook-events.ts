import type { EntityManager } from '@mikro-orm/postgresql';
import type { WebhookOwner } from './webhook-endpoints';

/**
 * The callbacks we owe partners, each stored with the body it is sent with (transitions.ts writes
 * those of status changes) until its delivery's recipients are redacted (retention.ts), and their
 * state: pending, delivered, failed or skipped.
 */

export type WebhookEventState = 'pending' | 'delivered' | 'failed' | 'skipped';

/** A stored callback as the log lists it. */
export interface WebhookEventRow {
  id: string;
  event: string;
  delivery_id: string | null;
  state: WebhookEventState;
  created_at: Date;
  /** Its body was removed with its delivery's recipients (RETENTION_DAYS): there is nothing left to send. */
  body_removed: boolean;
}

const EVENT_COLUMNS = 'id, event, delivery_id, state, created_at, body is null as body_removed';

/** A page of the partner's callbacks in one mode, newest first. */
export function listFor(em: EntityManager, { partnerId, mode }: WebhookOwner, page: { limit: number; offset: number }): Promise<WebhookEventRow[]> {
  return em.execute<WebhookEventRow[]>(
    `select ${EVENT_COLUMNS} from webhook_events where partner_id = ? and mode = ?
     order by created_at desc, id desc limit ? offset ?`,
    [partnerId, mode, page.limit, page.offset],
  );
}

/** One of the partner's callbacks in one mode; null when it is someone else's or none. */
export async function findFor(em: EntityManager, { partnerId, mode }: WebhookOwner, id: string): Promise<WebhookEventRow | null> {
  const [event] = await em.execute<WebhookEventRow[]>(
    `select ${EVENT_COLUMNS} from webhook_events where id = ? and partner_id = ? and mode = ?`,
    [id, partnerId, mode],
  );
  return event ?? null;
}

/** A `webhook.test` callback, which belongs to no delivery. */
export async function insertTest(em: EntityManager, { partnerId, mode }: WebhookOwner, test: { id: string; body: string }): Promise<void> {
  await em.execute(`insert into webhook_events (id, partner_id, mode, delivery_id, event, body) values (?, ?, ?, null, 'webhook.test', ?)`, [
    test.id,
    partnerId,
    mode,
    test.body,
  ]);
}

/** Marks the callback as being sent again. */
export async function markPending(em: EntityManager, id: string): Promise<void> {
  await em.execute(`update webhook_events set state = 'pending' where id = ?`, [id]);
}

/** Puts back the state a callback had before a send that did not start. */
export async function restoreState(em: EntityManager, id: string, state: string): Promise<void> {
  await em.execute('update webhook_events set state = ? where id = ?', [state, id]);
}
