import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

export interface DebitReconciliationInput {
  /** A debit still pending this long after its request is checked, as is any checked this long ago. */
  pendingAfterSeconds: number;
  /** Debits checked in one run; the next run takes the rest. */
  batch: number;
}

/** Debits checked at once: enough to clear a backlog, few enough to spare the gateway. */
const AT_ONCE = 10;

/**
 * One round of the debit reconciliation, run by a Temporal Schedule (workers/schedules.ts): every
 * debit still pending, closed without the gateway's word, or reported otherwise since, is asked
 * of its gateway and its record set to the gateway's word (activities/reconciliation.ts).
 */
export async function debitReconciliationWorkflow(input: DebitReconciliationInput): Promise<{ checked: number; corrected: number }> {
  const acts = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    // A gateway that keeps failing is left for the next round rather than holding this one.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
  });
  const references = await acts.debitsToReconcile({ pendingAfterSeconds: input.pendingAfterSeconds, limit: input.batch });
  let corrected = 0;
  for (let start = 0; start < references.length; start += AT_ONCE) {
    const round = references.slice(start, start + AT_ONCE).map((reference) =>
      acts.reconcileDebit({ reference, trigger: 'schedule' }).then(
        (result) => result.corrected,
        () => false,
      ),
    );
    corrected += (await Promise.all(round)).filter(Boolean).length;
  }
  return { checked: references.length, corrected };
}
