/**
 * A callback with its attempts, as the callback log shows it: the API's `WebhookDelivery` schema
 * answers it as JSON and the dashboard's pages list it, so both hold to this one shape.
 */

export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed' | 'skipped';

export interface WebhookAttempt {
  attempt: number;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  /** ISO 8601 timestamps, as the API answers them. */
  next_retry_at: string | null;
  created_at: string;
}

export interface WebhookDelivery {
  id: string;
  event: string;
  delivery_id: string | null;
  state: WebhookDeliveryState;
  created_at: string;
  attempts: WebhookAttempt[];
}
