import type { AppDeps } from '../deps';
import { isUnavailable } from '../middleware/errors';

/**
 * Ends a job's masked-call sessions once the job is over for its rider (finished, or cancelled by
 * the partner). A provider that does not answer is logged, not the caller's error: the partner's
 * or rider's request has already done its work, and the sessions run out on their own.
 */
export async function endJobCalls(deps: Pick<AppDeps, 'calling' | 'logger'>, deliveryId: string): Promise<void> {
  try {
    await deps.calling.closeSessions(deliveryId);
  } catch (error) {
    if (!isUnavailable(error)) throw error;
    deps.logger.warn('Masked calling unavailable; the job’s call sessions end at their expiry', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
