import type { ActivityOptions } from '@temporalio/workflow';
import type { DeliveryTimings } from '../domain/timings';
import { WEBHOOK_MAX_ATTEMPTS, webhookLongestDelaySeconds } from '../domain/webhook-retries';

/**
 * How a callback is sent, for the first send and for a redelivery alike.
 * Contract: "retried with exponential backoff, at most five times" (domain/webhook-retries.ts).
 * Contract: "a response slower than 10 seconds counts as failed" → the HTTP timeout, plus margin.
 */
export function webhookActivityOptions(t: DeliveryTimings): ActivityOptions {
  const backoff = { initialSeconds: t.webhookRetryInitialSeconds, coefficient: t.webhookRetryCoefficient };
  return {
    startToCloseTimeout: `${t.webhookTimeoutSeconds + 5} seconds`,
    retry: {
      initialInterval: `${backoff.initialSeconds} seconds`,
      backoffCoefficient: backoff.coefficient,
      maximumInterval: `${webhookLongestDelaySeconds(backoff)} seconds`,
      maximumAttempts: WEBHOOK_MAX_ATTEMPTS,
    },
  };
}
