import { ApplicationFailure } from '@temporalio/activity';
import { sandboxedInProduction } from '../config/settings';
import { debitMode, recordDebitOutcome, recordDebitRequest } from '../db/debits';
import { debitReference } from '../domain/debit-reference';
import { GatewayStoreUnavailableError, GatewayUnavailableError, type DebitResult } from '../integrations/mobile-money/gateway';
import { DEBIT_STORE_UNAVAILABLE } from '../workflows/messages';
import type { ActivityDeps } from './deps';
import { workerMetrics } from './metrics';

/**
 * Our own database failing says nothing of the network: it is raised as its own type, so the
 * workflow retries it without spending the debit's budget of tries (a Postgres outage must never
 * turn into a `failed` payment nobody declined).
 */
function storeUnavailable(error: unknown): ApplicationFailure {
  return ApplicationFailure.retryable(error instanceof Error ? error.message : String(error), DEBIT_STORE_UNAVAILABLE);
}

/** A read or write of our own Postgres; its failure is raised as `storeUnavailable`. */
async function fromStore<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storeUnavailable(error);
  }
}

/** Which debit: the booking's when no reference is named. */
interface DebitNamed {
  deliveryId: string;
  reference?: string;
}

/**
 * The debits of a delivery, each idempotent towards the gateway by its reference: the delivery id
 * for the booking's, `<delivery id>.<n>` for a fare change's (domain/debit-reference.ts). Histories
 * recorded before fare changes name only `deliveryId`: that is the booking's debit.
 */
export function createPaymentActivities({ orm, gateways, logger, settings }: ActivityDeps) {
  // The same rule the processes' start-up warning uses (config/settings.ts).
  const liveDebitsSandboxed = sandboxedInProduction(settings).includes('payments');
  return {
    /** Requests the debit. Outages throw (and are retried); declines come back as `failed`. */
    async requestDebit({ deliveryId, reference = debitReference(deliveryId) }: DebitNamed): Promise<DebitResult> {
      const row = await fromStore(async () => {
        const context = await recordDebitRequest(orm.em, reference, { live: gateways.live.name, test: gateways.test.name });
        if (!context) throw new Error(`Debit ${reference} was not found`);
        return context;
      });
      const gateway = gateways[row.mode];
      if (row.mode === 'live' && liveDebitsSandboxed) {
        // Only a staging deployment gets here (ALLOW_SANDBOX_IN_PRODUCTION): no money moves.
        logger.warn('A live debit goes to the sandbox network: no money moves', { deliveryId, reference, partnerId: row.partner_id });
      }
      try {
        const result = await gateway.debit({
          reference,
          provider: row.provider,
          phone: row.phone,
          amountPesewas: row.amount,
          email: row.email,
        });
        logger.info('Debit requested', { deliveryId, reference, partnerId: row.partner_id, state: result.state, gateway: gateway.name });
        return result;
      } catch (error) {
        // The sandbox network keeps its ledger in our Postgres: that failing is our outage too.
        if (error instanceof GatewayStoreUnavailableError) throw storeUnavailable(error);
        if (error instanceof GatewayUnavailableError) {
          logger.warn('Mobile Money network unavailable', { deliveryId, reference, error: error.message });
          throw ApplicationFailure.retryable(error.message, 'GatewayUnavailable');
        }
        throw error;
      }
    },

    /** Polls the gateway for a debit's state (when no callback has arrived). */
    async checkDebit({ deliveryId, reference = debitReference(deliveryId) }: DebitNamed): Promise<DebitResult> {
      const mode = await debitMode(orm.em, reference);
      if (!mode) throw new Error(`Delivery ${deliveryId} was not found`);
      return gateways[mode].status(reference);
    },

    /**
     * Writes the outcome the workflow settled on; `confirmed` says whether the gateway gave its word
     * (a record closed without it is checked again by the reconciliation).
     */
    async recordPayment(outcome: DebitNamed & { state: 'pending' | 'paid' | 'failed'; reason: string | null; confirmed: boolean }) {
      const { deliveryId, reference = debitReference(deliveryId) } = outcome;
      const recorded = await recordDebitOutcome(orm.em, { ...outcome, reference });
      const afterFinalWebhook = recorded?.afterFinalWebhook ?? false;
      logger.info('Payment settled', { deliveryId, reference, state: outcome.state, confirmedByGateway: outcome.confirmed, afterFinalWebhook });
      workerMetrics.debit(outcome.state, afterFinalWebhook);
    },
  };
}
