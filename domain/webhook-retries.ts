/**
 * The contract's webhook retry rule ("Delivery guarantees"), in one place for the retry policy
 * that the workflows set and for the next-retry time that the sending activity logs.
 */

/** The first attempt and at most five retries. */
export const WEBHOOK_MAX_ATTEMPTS = 6;

export interface WebhookBackoff {
  initialSeconds: number;
  coefficient: number;
}

/**
 * Seconds between failed attempt `attempt` (1-based) and the next: initial × coefficientⁿ⁻¹
 * (15 s, 75 s, about 6 min, 31 min, 2.6 h by default). Null after the last attempt.
 */
export function webhookRetryDelaySeconds(attempt: number, backoff: WebhookBackoff): number | null {
  if (attempt >= WEBHOOK_MAX_ATTEMPTS) return null;
  return backoff.initialSeconds * backoff.coefficient ** (attempt - 1);
}

/** The longest wait, before the last attempt: the retry policy's maximum interval. */
export function webhookLongestDelaySeconds(backoff: WebhookBackoff): number {
  return backoff.initialSeconds * backoff.coefficient ** (WEBHOOK_MAX_ATTEMPTS - 2);
}
