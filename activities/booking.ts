import { randomInt } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import * as bookings from '../db/bookings';
import { applyDeliveryChange, type RecordedFareChange } from '../db/delivery-changes';
import * as deliveries from '../db/deliveries';
import * as deliveryStops from '../db/delivery-stops';
import type { Delivery } from '../db/entities';
import * as handoverCodes from '../db/handover-codes';
import * as smsOutbox from '../db/sms-outbox';
import * as textBudget from '../db/text-budget';
import { FINAL_DROP, hashHandoverCode } from '../domain/handover-code-hash';
import { isTerminal } from '../domain/lifecycle';
import type { DeliveryChange } from '../workflows/messages';
import type { ActivityDeps } from './deps';

export function createBookingActivities({ orm, sms, logger, settings }: ActivityDeps) {
  /**
   * Sends one code's text within the partner's hourly budget; past it, the text is kept for the
   * partner's dashboard instead (the code's hash is kept either way, so the rider completes with
   * it). False when it was kept back.
   */
  async function textOrKeep(em: EntityManager, delivery: Delivery, text: { to: string; body: string }): Promise<boolean> {
    const sender = { partnerId: delivery.partnerId, mode: delivery.mode };
    if (!(await textBudget.spendText(em, sender, settings.smsPerPartnerPerHour))) {
      await smsOutbox.keepWithheldText(em, { ...text, deliveryId: delivery.id, reason: 'hourly_budget' });
      return false;
    }
    try {
      await sms[delivery.mode].send(text.to, text.body, delivery.id);
    } catch (error) {
      await textBudget.giveBackText(em, sender).catch(() => undefined);
      throw error;
    }
    return true;
  }

  /**
   * Texts each recipient of an `otp` delivery (every stop and the final drop) a code of their
   * own; the codes never enter workflow history, only their hashes reach Postgres.
   */
  async function textCodes(em: EntityManager, delivery: Delivery): Promise<void> {
    if (delivery.verificationMethod !== 'otp') return;
    const deliveryId = delivery.id;
    const stops = await deliveryStops.list(em, deliveryId);
    const recipients = [
      ...stops.map((s) => ({ position: s.position, phone: s.recipientPhone })),
      { position: FINAL_DROP, phone: delivery.recipientPhone },
    ];
    let keptBack = 0;
    for (const { position, phone } of recipients) {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      // A retried activity finds the code already issued and sends nothing twice.
      if (!(await handoverCodes.issue(em, deliveryId, position, hashHandoverCode(deliveryId, position, code)))) continue;
      try {
        const body = `Your parcel ${delivery.reference} is on its way. Give the rider this code only when you have it: ${code}`;
        if (!(await textOrKeep(em, delivery, { to: phone, body }))) keptBack += 1;
      } catch (error) {
        // Unsent codes are withdrawn so the retry issues and sends a fresh one.
        await handoverCodes.withdraw(em, deliveryId, position);
        throw error;
      }
    }
    if (keptBack > 0) {
      // Neither the code nor the phone: the partner reads them on the delivery's dashboard page.
      logger.warn('Hand-over codes not texted: the partner is over its hourly text budget (SMS_PER_PARTNER_PER_HOUR)', {
        partnerId: delivery.partnerId,
        mode: delivery.mode,
        deliveryId,
        codesKeptBack: keptBack,
        next: "the codes are on the delivery's dashboard page",
      });
    }
  }

  return {
    /**
     * First step of every delivery workflow: claims the booking row for it. The API commits the
     * row before it starts the workflow, so a row that is not there was withdrawn (the start failed
     * as far as the API could tell, and the partner was answered 503): the refusal is final, and
     * the workflow ends having done nothing. While Postgres cannot be reached the step is retried.
     */
    async beginDelivery({ deliveryId }: { deliveryId: string }): Promise<void> {
      if (await bookings.claimForWorkflow(orm.em, deliveryId)) return;
      logger.info('Booking withdrawn before its workflow began', { deliveryId });
      throw ApplicationFailure.nonRetryable('The booking was withdrawn', 'BookingNotFound');
    },

    /**
     * A partner's change, written where the rider's app, offers and answers read it, with the fare
     * change it makes (and the debit that calls for), if the route was priced again.
     */
    async recordDeliveryChange({ deliveryId, change }: { deliveryId: string; change: DeliveryChange }): Promise<RecordedFareChange | null> {
      return applyDeliveryChange(orm.em.fork(), deliveryId, change);
    },

    /**
     * New hand-over codes for the drops whose recipient's phone changed: the old codes are
     * withdrawn (they stop working at once) and each new recipient is texted one of their own.
     */
    async reissueHandoverCodes({ deliveryId, positions }: { deliveryId: string; positions: number[] }): Promise<void> {
      const em = orm.em.fork();
      const delivery = await deliveries.find(em, deliveryId);
      if (!delivery || isTerminal(delivery.status)) return;
      for (const position of positions) await handoverCodes.withdraw(em, deliveryId, position);
      await textCodes(em, delivery);
    },

    /**
     * Texts the hand-over codes of an `otp` delivery, retried until the SMS provider takes them.
     * A delivery that has ended needs no code, so an attempt after that sends nothing.
     */
    async textHandoverCodes({ deliveryId }: { deliveryId: string }): Promise<void> {
      const em = orm.em.fork();
      const delivery = await deliveries.find(em, deliveryId);
      if (!delivery) throw ApplicationFailure.nonRetryable(`Delivery ${deliveryId} was not found`, 'BookingNotFound');
      if (isTerminal(delivery.status)) return;
      await textCodes(em, delivery);
    },
  };
}
