// Retrying what the service says may succeed later: 429 (over a rate limit, after Retry-After)
// and 503 (a backing service unreachable). Nothing else is retried: a 4xx will not change, and a
// 500 is a bug to report with its request id.
import { PartnerApiError } from './errors';

export interface RetryOptions {
  /** Tries after the first; 3 unless set. */
  retries?: number;
  /** The first wait when the answer names none (a 503 without Retry-After); doubled each time. 500 ms unless set. */
  initialDelayMs?: number;
  /** The longest wait; a Retry-After beyond it is not waited for, the error is thrown. 30 s unless set. */
  maxDelayMs?: number;
  /** How to wait; tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
}

const RETRIED = new Set([429, 503]);

/**
 * Runs `call` until it succeeds, is refused for good, or the retries are spent. A retried booking
 * must carry the same Idempotency-Key on every try, so that a try that was answered but whose answer
 * was lost does not book twice:
 *
 *   const key = randomUUID();
 *   await withRetries(() => partner.deliveries.create(body, { idempotencyKey: key }));
 */
export async function withRetries<T>(call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const retries = options.retries ?? 3;
  const initialDelayMs = options.initialDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof PartnerApiError) || !RETRIED.has(error.status) || attempt >= retries) throw error;
      const wait = error.retryAfterSeconds !== null ? error.retryAfterSeconds * 1000 : Math.min(initialDelayMs * 2 ** attempt, maxDelayMs);
      // Trying sooner than the service asked would only be refused again.
      if (wait > maxDelayMs) throw error;
      await sleep(wait);
    }
  }
}
