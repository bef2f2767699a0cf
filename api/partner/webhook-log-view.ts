import type { EntityManager } from '@mikro-orm/postgresql';
import * as webhookAttempts from '../../db/webhook-attempts';
import type { WebhookEventRow } from '../../db/webhook-events';
import { isoZ } from '../../domain/delivery-view';
import type { WebhookDelivery } from '../openapi/schemas';

/** The callback log: each callback with its attempts, for the API and the dashboard alike. */

// The routes that list callbacks read them with db/webhook-events.ts and pass the rows here.
export type { WebhookEventRow } from '../../db/webhook-events';

function webhookDeliveryView(event: WebhookEventRow, attempts: webhookAttempts.AttemptRow[]): WebhookDelivery {
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
  const attempts = await webhookAttempts.listFor(em, events.map((e) => e.id));
  return events.map((event) => webhookDeliveryView(event, attempts.filter((a) => a.event_id === event.id)));
}
