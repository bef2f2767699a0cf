import type { CallSession, OpenCallSession } from '../integrations/calling/masking';
import type { AppDeps } from './app-deps';
import { isUnavailable } from './middleware/error-handler';

/**
 * A rider's masked-call sessions, around answers that have already done their work (a rider's
 * step, a partner's cancel): a calling provider that does not answer is logged and costs the
 * rider the call button, never the answer. The next read of the job asks again, and a session
 * not closed runs out at its expiry.
 */
type CallDeps = Pick<AppDeps, 'calling' | 'logger'>;

/** The recipient's session, or null while the provider does not answer. */
export function openJobCall(deps: CallDeps, input: OpenCallSession): Promise<CallSession | null> {
  return deps.calling.openSession(input).catch((error: unknown) => unanswered(deps, error, 'the job is shown without call numbers'));
}

/** Ends a job's sessions once the job is over for its rider (finished, or cancelled by the partner). */
export async function endJobCalls(deps: CallDeps, deliveryId: string): Promise<void> {
  await deps.calling.closeSessions(deliveryId).catch((error: unknown) => unanswered(deps, error, 'the job’s call sessions end at their expiry'));
}

function unanswered(deps: CallDeps, error: unknown, outcome: string): null {
  if (!isUnavailable(error)) throw error;
  deps.logger.warn(`Masked calling unavailable; ${outcome}`, { error: error instanceof Error ? error.message : String(error) });
  return null;
}
