import { ApplicationFailure } from '@temporalio/activity';
import * as debits from '../db/debits';
import { GatewayUnavailableError, type DebitState } from '../integrations/mobile-money/gateway';
import type { ActivityDeps } from './deps';
import { workerMetrics } from './metrics';

/** What asked for a debit to be checked: the schedule's round, or a report that contradicts the record. */
export type ReconcileTrigger = 'schedule' | 'late-confirmation';

/**
 * Debit records checked against the gateway: the record follows the gateway's word, never the
 * other way round, and each change of a record is logged, counted and kept in `debit_corrections`.
 */
export function createReconciliationActivities({ orm, gateways, logger }: ActivityDeps) {
  return {
    /** The references of the debits whose record may not match the gateway (db/debits.ts `toReconcile`). */
    async debitsToReconcile(input: { pendingAfterSeconds: number; limit: number }): Promise<string[]> {
      return debits.toReconcile(orm.em.fork(), input);
    },

    /**
     * Asks the debit's gateway for its state and sets the record to it. A gateway that does not
     * answer throws, so the activity's retry asks again; one that still says `pending` changes
     * nothing. Returns the gateway's word and whether the record was corrected to it. A debit is
     * named by its reference; histories recorded before fare changes name the booking's by `deliveryId`.
     */
    async reconcileDebit(input: { deliveryId?: string; reference?: string; trigger: ReconcileTrigger }): Promise<{ state: DebitState; corrected: boolean }> {
      const reference = input.reference ?? input.deliveryId;
      if (!reference) throw ApplicationFailure.nonRetryable('reconcileDebit needs a reference', 'BadInput');
      const { trigger } = input;
      const em = orm.em.fork();
      const debit = await debits.findForCheck(em, reference);
      if (!debit) return { state: 'pending', corrected: false };
      const gateway = gateways[debit.mode];
      let word;
      try {
        word = await gateway.status(reference);
      } catch (error) {
        if (error instanceof GatewayUnavailableError) throw ApplicationFailure.retryable(error.message, 'GatewayUnavailable');
        throw error;
      }
      const correction = await debits.reconcile(em, reference, { state: word.state, reason: word.reason ?? null }, trigger);
      if (!correction) return { state: word.state, corrected: false };
      // After the delivery's last webhook nobody is told (the contract has no payment event): the
      // dashboard's payment trail and the metric's after_final_webhook label say so.
      logger.warn('Debit record corrected to the gateway’s word', { ...correction, trigger });
      workerMetrics.debitCorrection(correction.from, correction.to, correction.afterFinalWebhook);
      return { state: word.state, corrected: true };
    },
  };
}
