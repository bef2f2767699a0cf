import type { Orm } from '../../db/orm';
import { list, rows, write } from './db';

export interface WebhookEventRow {
  id: string;
  delivery_id: string | null;
  event: string;
  state: string;
  attempts: number;
}

const EVENT_COLUMNS = 'id, delivery_id, event, state, attempts';

/** The callbacks recorded for one delivery or several, oldest first. */
export function webhookEventsOf(orm: Orm, deliveryIds: string | readonly string[]): Promise<WebhookEventRow[]> {
  if (list(deliveryIds).length === 0) return Promise.resolve([]);
  return rows(orm, `select ${EVENT_COLUMNS} from webhook_events where delivery_id in (?) order by created_at, id`, [list(deliveryIds)]);
}

/** The stored bodies of a delivery's callbacks, oldest first: null where redacted. */
export async function webhookBodiesOf(orm: Orm, deliveryId: string): Promise<(string | null)[]> {
  const found = await rows<{ body: string | null }>(orm, 'select body from webhook_events where delivery_id = ? order by created_at, id', [deliveryId]);
  return found.map((row) => row.body);
}

/** The test callbacks (`webhook.test`) a partner sent from the dashboard. */
export function testWebhooksOf(orm: Orm, partnerId: string): Promise<WebhookEventRow[]> {
  return rows(orm, `select ${EVENT_COLUMNS} from webhook_events where partner_id = ? and event = 'webhook.test' order by created_at, id`, [partnerId]);
}

export interface WebhookAttemptRow {
  event_id: string;
  status_code: number | null;
  error: string | null;
  created_at: Date;
}

/** Every try at the callbacks of the given deliveries, in the order they were made. */
export function webhookAttemptsOf(orm: Orm, deliveryIds: string | readonly string[]): Promise<WebhookAttemptRow[]> {
  if (list(deliveryIds).length === 0) return Promise.resolve([]);
  return rows(
    orm,
    'select a.event_id, a.status_code, a.error, a.created_at from webhook_attempts a join webhook_events e on e.id = a.event_id where e.delivery_id in (?) order by a.id',
    [list(deliveryIds)],
  );
}

/** A partner's callback settings, live before test. */
export function webhookEndpointsOf(orm: Orm, partnerId: string): Promise<{ mode: string; url: string | null; secret: string | null }[]> {
  return rows(orm, 'select mode, url, secret from webhook_endpoints where partner_id = ? order by mode', [partnerId]);
}

/** Writes a callback URL past the API's checks, as a name whose DNS changed since it was set would stand. */
export function setWebhookUrl(orm: Orm, partnerId: string, url: string): Promise<void> {
  return write(orm, 'update webhook_endpoints set url = ? where partner_id = ?', [url, partnerId]);
}
