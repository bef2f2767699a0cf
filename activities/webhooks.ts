import { ApplicationFailure, Context } from '@temporalio/activity';
import * as webhookAttempts from '../db/webhook-attempts';
import { webhookRetryDelaySeconds } from '../domain/webhook-retries';
import { signatureHeader } from '../domain/webhook-signature';
import type { ActivityDeps } from './deps';
import { workerMetrics } from './metrics';

export function createWebhookActivities({ orm, webhookHttp, logger, settings }: ActivityDeps) {
  const backoff = { initialSeconds: settings.webhookRetryInitialSeconds, coefficient: settings.webhookRetryCoefficient };
  /** When the retry policy will try again after attempt `attempt` (null after the last). */
  const nextRetryAt = (attempt: number): Date | null => {
    const delaySeconds = webhookRetryDelaySeconds(attempt, backoff);
    return delaySeconds === null ? null : new Date(Date.now() + delaySeconds * 1000);
  };

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
      const event = await webhookAttempts.claim(orm.em, eventId);
      if (!event) throw ApplicationFailure.retryable(`No callback ${eventId} on record`, 'WebhookEventMissing');
      const endpoint = { url: event.url, secret: event.secret };
      const attempt = event.attempt;
      const log = { eventId, event: event.event, deliveryId: event.delivery_id, partnerId: event.partner_id, attempt };

      if (event.body === null) {
        // Redacted (RETENTION_DAYS) while a redelivery was on its way: there is nothing to send.
        await webhookAttempts.markSkipped(orm.em, eventId);
        logger.info('Webhook skipped: its body was removed with the recipients’ data', log);
        return;
      }
      if (!endpoint.url || !endpoint.secret || attempt === null) {
        await webhookAttempts.markSkipped(orm.em, eventId);
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
      await webhookAttempts.record(orm.em, { eventId, attempt, url: endpoint.url, statusCode, latencyMs, error, nextRetryAt: retryAt, delivered });
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
