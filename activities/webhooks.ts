import { createHmac } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WebhookEndpointSchema, WebhookEventSchema } from '../db/entities';
import type { ActivityDeps } from './deps';

/** Attempts in all: the first and at most five retries (contract "Delivery guarantees"). */
export const WEBHOOK_MAX_ATTEMPTS = 6;

/** `sha256=<lowercase hex HMAC-SHA256 of the raw body>`, keyed with the webhook secret. */
export function signatureHeader(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

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
    async sendWebhook({ eventId, attempt: forcedAttempt }: { eventId: string; attempt?: number }): Promise<void> {
      const attempt = forcedAttempt ?? Context.current().info.attempt;
      const em = orm.em.fork();
      const event = await em.findOneOrFail(WebhookEventSchema, { id: eventId });
      const endpoint = await em.findOne(WebhookEndpointSchema, { partnerId: event.partnerId, mode: event.mode });
      const log = { eventId, event: event.event, deliveryId: event.deliveryId, partnerId: event.partnerId, attempt };

      if (!endpoint?.url || !endpoint.secret) {
        await em.execute(`update webhook_events set state = 'skipped' where id = ? and state <> 'delivered'`, [eventId]);
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
      const retryAt = delivered ? null : nextRetryAt(attempt);
      await em.execute(
        `insert into webhook_attempts (event_id, attempt, url, status_code, latency_ms, error, next_retry_at)
         values (?, ?, ?, ?, ?, ?, ?)`,
        [eventId, attempt, endpoint.url, statusCode, latencyMs, error, retryAt],
      );
      await em.execute(
        `update webhook_events set attempts = attempts + 1, last_attempt_at = now(),
           state = case when ? then 'delivered' when ? then 'failed' else state end
         where id = ?`,
        [delivered, !delivered && retryAt === null, eventId],
      );
      logger.info(delivered ? 'Webhook delivered' : 'Webhook attempt failed', {
        ...log,
        statusCode,
        latencyMs,
        error,
        nextRetryAt: retryAt?.toISOString() ?? null,
      });
      if (!delivered) throw ApplicationFailure.retryable(`Callback not accepted: ${error}`, 'WebhookNotAccepted');
    },
  };
}

function describe(failure: unknown): string {
  const error = failure as { code?: string; message?: string };
  if (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT' || /timeout|aborted/i.test(error.message ?? '')) {
    return 'Timed out';
  }
  if (/is not allowed/.test(error.message ?? '')) return 'Refused: the address is private, loopback or link-local';
  return error.code ? `Connection failed (${error.code})` : (error.message ?? 'Connection failed');
}
