import type { ActivityOptions } from '@temporalio/workflow';
import type { DeliveryTimings } from './messages';

/**
 * How a callback is sent, for the first send and for a redelivery alike.
 * Contract: "retried with exponential backoff, at most five times" → 6 attempts in all;
 * intervals 15 s × 5ⁿ (DESIGN section 9), so the last wait is initial × coefficient⁴.
 * Contract: "a response slower than 10 seconds counts as failed" → the HTTP timeout, plus margin.
 */
export function webhookActivityOptions(t: DeliveryTimings): ActivityOptions {
  return {
    startToCloseTimeout: `${t.webhookTimeoutSeconds + 5} seconds`,
    retry: {
      initialInterval: `${t.webhookRetryInitialSeconds} seconds`,
      backoffCoefficient: t.webhookRetryCoefficient,
      maximumInterval: `${t.webhookRetryInitialSeconds * t.webhookRetryCoefficient ** 4} seconds`,
      maximumAttempts: 6,
    },
  };
}
