import { ApplicationFailure } from '@temporalio/activity';
import { GatewayStoreUnavailableError, GatewayUnavailableError, type DebitResult, type MobileMoneyProvider } from '../integrations/mobile-money/gateway';
import { DEBIT_STORE_UNAVAILABLE } from '../workflows/messages';
import type { ActivityDeps } from './deps';
import { workerMetrics } from './metrics';

interface DebitContextRow {
  mode: 'live' | 'test';
  partner_id: string;
  total_fare: number;
  account_id: string;
  provider: MobileMoneyProvider;
  phone: string;
  /** The partner's sign-up email: gateways such as Paystack send their receipt to it. */
  email: string;
}

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

/** The debit of a delivery, idempotent towards the gateway: the delivery id is the reference. */
export function createPaymentActivities({ orm, gateways, logger }: ActivityDeps) {
  /** The delivery's fare, the account it was booked with and the partner's email, in one read. */
  async function debitContext(deliveryId: string) {
    const em = orm.em.fork();
    // The account as it was registered; removing it later never touches this booking.
    const [row] = await em.execute<DebitContextRow[]>(
      `select d.mode, d.partner_id, d.total_fare, m.id as account_id, m.provider, m.phone, p.email
       from deliveries d join payment_methods m on m.id = d.payment_method_id join partners p on p.id = d.partner_id
       where d.id = ?`,
      [deliveryId],
    );
    if (!row) throw new Error(`Delivery ${deliveryId} was not found`);
    return { em, row, gateway: gateways[row.mode] };
  }

  return {
    /** Requests the debit. Outages throw (and are retried); declines come back as `failed`. */
    async requestDebit({ deliveryId }: { deliveryId: string }): Promise<DebitResult> {
      const { row, gateway } = await fromStore(async () => {
        const context = await debitContext(deliveryId);
        await context.em.execute(
          `insert into debits (delivery_id, payment_method_id, gateway, amount) values (?, ?, ?, ?)
           on conflict (delivery_id) do nothing`,
          [deliveryId, context.row.account_id, context.gateway.name, context.row.total_fare],
        );
        return context;
      });
      try {
        const result = await gateway.debit({
          reference: deliveryId,
          provider: row.provider,
          phone: row.phone,
          amountPesewas: row.total_fare,
          email: row.email,
        });
        logger.info('Debit requested', { deliveryId, partnerId: row.partner_id, state: result.state, gateway: gateway.name });
        return result;
      } catch (error) {
        // The sandbox network keeps its ledger in our Postgres: that failing is our outage too.
        if (error instanceof GatewayStoreUnavailableError) throw storeUnavailable(error);
        if (error instanceof GatewayUnavailableError) {
          logger.warn('Mobile Money network unavailable', { deliveryId, error: error.message });
          throw ApplicationFailure.retryable(error.message, 'GatewayUnavailable');
        }
        throw error;
      }
    },

    /** Polls the gateway for a debit's state (when no callback has arrived). */
    async checkDebit({ deliveryId }: { deliveryId: string }): Promise<DebitResult> {
      const { gateway } = await debitContext(deliveryId);
      return gateway.status(deliveryId);
    },

    /** Writes the final outcome; `paid` and `failed` are never changed afterwards. */
    async recordPayment({ deliveryId, state, reason }: { deliveryId: string; state: 'pending' | 'paid' | 'failed'; reason: string | null }) {
      await orm.em.fork().transactional(async (em) => {
        await em.execute(`update deliveries set payment_status = ?, updated_at = now() where id = ? and payment_status = 'pending'`, [
          state,
          deliveryId,
        ]);
        await em.execute(
          `update debits set state = ?, reason = ?, settled_at = now() where delivery_id = ? and state = 'pending'`,
          [state, reason, deliveryId],
        );
      });
      logger.info('Payment settled', { deliveryId, state });
      workerMetrics.debit(state);
    },
  };
}
