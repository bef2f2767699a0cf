import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { retentionCutoff } from '../domain/retention';

export interface RetentionInput {
  /** RETENTION_DAYS: a delivery that ended this many days ago loses its recipients' data. */
  retentionDays: number;
  /** Deliveries redacted by one activity; the round goes on while batches come back full. */
  batch: number;
}

export interface RetentionReport {
  /** Deliveries that ended before this moment (ISO 8601) were redacted. */
  cutoff: string;
  redacted: number;
  /** Hand-over codes of ended jobs removed by the round: texts kept in the outbox, and hashes. */
  codeTexts: number;
  codeHashes: number;
}

// Every step is safe to repeat and the next round finds whatever is left, so a step that keeps
// failing (the database, a photo that cannot be removed) fails this round instead of holding it.
const { redactFinishedDeliveries, forgetShortLivedCopies } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
});

/**
 * One round of the retention, started daily by a Temporal Schedule (workers/schedules.ts): every
 * finished delivery that ended RETENTION_DAYS ago or more is redacted, batch after batch, oldest
 * first (activities/retention.ts), then the hand-over codes of ended jobs are removed. A backlog
 * (the first round after a deploy) carries on in a fresh run before the history grows long.
 */
export async function retentionWorkflow(input: RetentionInput): Promise<RetentionReport> {
  const cutoff = retentionCutoff(new Date(), input.retentionDays).toISOString();
  let redacted = 0;
  for (;;) {
    const batch = await redactFinishedDeliveries({ cutoff, limit: input.batch });
    redacted += batch.redacted;
    if (batch.found < input.batch) break;
    if (workflowInfo().continueAsNewSuggested) return continueAsNew<typeof retentionWorkflow>(input);
  }
  const codes = await forgetShortLivedCopies();
  return { cutoff, redacted, ...codes };
}
