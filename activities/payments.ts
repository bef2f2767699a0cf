import { ApplicationFailure } from '@temporalio/activity';
import { DeliverySchema, PaymentMethodSchema } from '../db/entities';
import { GatewayUnavailableError, type DebitResult } from '../integrations/mobile-money/gateway';
import type { ActivityDeps } from './deps';
import { workerMetrics } from './metrics';

/** The debit of a delivery, idempotent towards the gateway: the delivery id is the reference. */
export function createPaymentActivities({ orm, gateways, logger }: ActivityDeps) {
  async function debitContext(deliveryId: string) {
    const em = orm.em.fork();
    const delivery = await em.findOneOrFail(DeliverySchema, { id: deliveryId });
    // The account as it was registered; removing it later never touches this booking.
    const account = await em.findOneOrFail(PaymentMethodSchema, { id: delivery.paymentMethodId });
    return { em, delivery, account, gateway: gateways[delivery.mode] };
  }

  /** The partner's sign-up email: gateways such as Paystack send their receipt to it. */
  async function partnerEmail(em: ReturnType<typeof orm.em.fork>, partnerId: string): Promise<string | undefined> {
    const [partner] = await em.execute<{ email: string }[]>('select email from partners where id = ?', [partnerId]);
    return partner?.email;
  }

  return {
    /** Requests the debit. Outages throw (and are retried); declines come back as `failed`. */
    async requestDebit({ deliveryId }: { deliveryId: string }): Promise<DebitResult> {
      const { em, delivery, account, gateway } = await debitContext(deliveryId);
      await em.execute(
        `insert into debits (delivery_id, payment_method_id, gateway, amount) values (?, ?, ?, ?)
         on conflict (delivery_id) do nothing`,
        [deliveryId, account.id, gateway.name, delivery.totalFare],
      );
      try {
        const result = await gateway.debit({
          reference: deliveryId,
          provider: account.provider,
          phone: account.phone,
          amountPesewas: delivery.totalFare,
          email: await partnerEmail(em, delivery.partnerId),
        });
        logger.info('Debit requested', { deliveryId, partnerId: delivery.partnerId, state: result.state, gateway: gateway.name });
        return result;
      } catch (error) {
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
