import type { EntityManager } from '@mikro-orm/postgresql';
import { isoZ } from '../../domain/delivery-view';
import type { WebhookDelivery } from '../openapi/schemas';

/** The callback log: each callback with its attempts, for the API and the dashboard alike. */

/** A stored callback as the log lists it. */
export interface WebhookEventRow {
  id: string;
  event: string;
  delivery_id: string | null;
  state: WebhookDelivery['state'];
  created_at: Date;
}
interface AttemptRow {
  event_id: string;
  attempt: number;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  next_retry_at: Date | null;
  created_at: Date;
}

function webhookDeliveryView(event: WebhookEventRow, attempts: AttemptRow[]): WebhookDelivery {
  return {
    id: event.id,
    event: event.event,
    delivery_id: event.delivery_id,
    state: event.state,
    created_at: isoZ(event.created_at),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      error: a.error,
      next_retry_at: a.next_retry_at ? isoZ(a.next_retry_at) : null,
      created_at: isoZ(a.created_at),
    })),
  };
}

/** Loads callbacks with their attempts in two queries; attempts newest first, like the callbacks. */
export async function loadWebhookDeliveries(em: EntityManager, events: WebhookEventRow[]): Promise<WebhookDelivery[]> {
  if (events.length === 0) return [];
  const attempts = await em.execute<AttemptRow[]>(
    `select event_id, attempt, status_code, latency_ms, error, next_retry_at, created_at from webhook_attempts
     where event_id in (${events.map(() => '?').join(', ')}) order by id desc`,
    events.map((e) => e.id),
  );
  return events.map((event) => webhookDeliveryView(event, attempts.filter((a) => a.event_id === event.id)));
}
