import { createHmac } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { poolQuery } from '../db/pool-query';
import type { ActivityDeps } from './deps';
import { workerMetrics } from './metrics';

interface EventToSend {
  id: string;
  event: string;
  delivery_id: string | null;
  partner_id: string;
  /** The exact bytes fixed when the status changed. */
  body: string;
  /** This try's number, taken before it is sent; null when there is no URL to send to. */
  attempt: number | null;
  url: string | null;
  secret: string | null;
}

/** Attempts in all: the first and at most five retries (contract "Delivery guarantees"). */
export const WEBHOOK_MAX_ATTEMPTS = 6;

/** `sha256=<lowercase hex HMAC-SHA256 of the raw body>`, keyed with the webhook secret. */
export function signatureHeader(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/**
 * The event and the partner's current URL and secret in one round trip: this is on the path from
 * a status change to the partner's server. The try's number is taken in the same statement,
 * before the try is sent, under the event's row lock: tries of one event at the same time (a
 * retry and a redelivery) and a try whose worker died before its answer was recorded never share
 * a number. Every callback runs these, so they are named and prepared.
 */
const CLAIM_ATTEMPT = {
  name: 'webhook-claim-attempt',
  text: `
    with target as (
      select e.id, w.url, w.secret
      from webhook_events e left join webhook_endpoints w on w.partner_id = e.partner_id and w.mode = e.mode
      where e.id = $1
    ), claimed as (
      update webhook_events e set attempts = e.attempts + 1
      from target t where e.id = t.id and t.url is not null and t.secret is not null
      returning e.attempts
    )
    select e.id, e.event, e.delivery_id, e.partner_id, e.body, t.url, t.secret, (select attempts from claimed) as attempt
    from webhook_events e join target t on t.id = e.id`,
};

const MARK_SKIPPED = {
  name: 'webhook-mark-skipped',
  text: `update webhook_events set state = 'skipped' where id = $1 and state <> 'delivered'`,
};

/**
 * The try and its outcome on the event, in one statement (so at once, without a transaction's
 * extra round trips). `$8` is whether it was delivered; a failed try with no retry left ($7 null)
 * fails the event.
 */
const RECORD_ATTEMPT = {
  name: 'webhook-record-attempt',
  text: `
    with attempt as (
      insert into webhook_attempts (event_id, attempt, url, status_code, latency_ms, error, next_retry_at)
      values ($1, $2, $3, $4, $5, $6, $7))
    update webhook_events set last_attempt_at = now(),
      state = case when $8::boolean then 'delivered' when $7::timestamptz is null then 'failed' else state end
    where id = $1`,
};

export function createWebhookActivities({ orm, webhookHttp, logger, settings }: ActivityDeps) {
  /** When the retry policy will try again after attempt `attempt` (null after the last). */
  const nextRetryAt = (attempt: number): Date | null =>
    attempt >= WEBHOOK_MAX_ATTEMPTS
      ? null
      : new Date(Date.now() + settings.webhookRetryInitialSeconds * settings.webhookRetryCoefficient ** (attempt - 1) * 1000);

  return {
    /**
     * One attempt at one callback. The body is the stored bytes, identical on every retry; the
     * signature uses the secret current now, so a rotated secret takes effect at once. A non-2xx
     * answer, a connection error or a timeout throws, and the activity's retry policy tries again.
     */
    async sendWebhook({ eventId }: { eventId: string }): Promise<void> {
      // The retry policy's attempt decides when (and whether) the next try comes; the logged
      // number counts every try at this event, redeliveries included.
      const policyAttempt = Context.current().info.attempt;
      const db = poolQuery(orm.em);
      const {
        rows: [event],
      } = await db.query<EventToSend>({ ...CLAIM_ATTEMPT, values: [eventId] });
      if (!event) throw ApplicationFailure.retryable(`No callback ${eventId} on record`, 'WebhookEventMissing');
      const endpoint = { url: event.url, secret: event.secret };
      const attempt = event.attempt;
      const log = { eventId, event: event.event, deliveryId: event.delivery_id, partnerId: event.partner_id, attempt };

      if (!endpoint.url || !endpoint.secret || attempt === null) {
        await db.query({ ...MARK_SKIPPED, values: [eventId] });
        logger.info('Webhook skipped: no URL configured', log);
        return;
      }

      let statusCode: number | null = null;
      let latencyMs: number | null = null;
      let error: string | null = null;
      try {
        const response = await webhookHttp.post(endpoint.url, event.body, {
          'Content-Type': 'application/json',
          'X-Service-Signature': signatureHeader(endpoint.secret, event.body),
          'X-Service-Event-Id': event.id,
          'X-Service-Event': event.event,
          'X-Service-Attempt': String(attempt),
        });
        statusCode = response.status;
        latencyMs = response.latencyMs;
        if (response.status < 200 || response.status >= 300) error = `HTTP ${response.status}`;
      } catch (failure) {
        error = describe(failure);
      }

      const delivered = error === null;
      const retryAt = delivered ? null : nextRetryAt(policyAttempt);
      await db.query({ ...RECORD_ATTEMPT, values: [eventId, attempt, endpoint.url, statusCode, latencyMs, error, retryAt, delivered] });
      logger.info(delivered ? 'Webhook delivered' : 'Webhook attempt failed', {
        ...log,
        statusCode,
        latencyMs,
        error,
        nextRetryAt: retryAt?.toISOString() ?? null,
      });
      workerMetrics.webhookAttempt(delivered ? 'delivered' : 'failed', retryAt === null);
      if (!delivered) throw ApplicationFailure.retryable(`Callback not accepted: ${error}`, 'WebhookNotAccepted');
    },
  };
}

function describe(failure: unknown): string {
  const error = failure as { code?: string; message?: string };
  // ERR_CANCELED: the whole-exchange time limit (an AbortSignal) ran out.
  if (['ECONNABORTED', 'ETIMEDOUT', 'ERR_CANCELED'].includes(error.code ?? '') || /timeout|aborted|canceled/i.test(error.message ?? '')) {
    return 'Timed out';
  }
  if (/is not allowed/.test(error.message ?? '')) return 'Refused: the address is private, loopback or link-local';
  return error.code ? `Connection failed (${error.code})` : (error.message ?? 'Connection failed');
}
