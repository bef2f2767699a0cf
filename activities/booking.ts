import { randomInt } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { deliveryExists } from '../db/delivery-reads';
import { DeliverySchema, DeliveryStopSchema, type Delivery } from '../db/entities';
import { FINAL_DROP, hashHandoverCode } from '../domain/handover-code';
import { isTerminal } from '../domain/lifecycle';
import type { ActivityDeps } from './deps';

export function createBookingActivities({ orm, sms, settings }: ActivityDeps) {
  /**
   * Texts each recipient of an `otp` delivery (every stop and the final drop) a code of their
   * own; the codes never enter workflow history, only their hashes reach Postgres.
   */
  async function textCodes(em: EntityManager, delivery: Delivery): Promise<void> {
    if (delivery.verificationMethod !== 'otp') return;
    const deliveryId = delivery.id;
    const stops = await em.find(DeliveryStopSchema, { deliveryId }, { orderBy: { position: 'asc' } });
    const recipients = [
      ...stops.map((s) => ({ position: s.position, phone: s.recipientPhone })),
      { position: FINAL_DROP, phone: delivery.recipientPhone },
    ];
    for (const { position, phone } of recipients) {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const inserted = await em.execute<{ position: number }[]>(
        `insert into delivery_otps (delivery_id, position, code_hash) values (?, ?, ?)
         on conflict do nothing returning position`,
        [deliveryId, position, hashHandoverCode(deliveryId, position, code)],
      );
      // A retried activity finds the code already issued and sends nothing twice.
      if (inserted.length === 0) continue;
      try {
        await sms[delivery.mode].send(
          phone,
          `Your parcel ${delivery.reference} is on its way. Give the rider this code only when you have it: ${code}`,
          deliveryId,
        );
      } catch (error) {
        // Unsent codes are withdrawn so the retry issues and sends a fresh one.
        await em.execute('delete from delivery_otps where delivery_id = ? and position = ?', [deliveryId, position]);
        throw error;
      }
    }
  }

  return {
    /**
     * First step of every delivery workflow: the booking row must exist (the API commits it
     * right after starting the workflow). Given `bookedAt` (the workflow's start), a row still
     * missing `bookingCommitGraceSeconds` later was never committed, and the refusal is final;
     * until then, and whenever Postgres cannot be read, the step is tried again. Workflows from
     * before `hand-over-codes-texted-apart` also text the hand-over codes here (`textCodes`
     * absent); later ones pass `textCodes: false` and text them with `textHandoverCodes`.
     */
    async beginDelivery({
      deliveryId,
      textCodes: withCodes = true,
      bookedAt,
    }: {
      deliveryId: string;
      textCodes?: boolean;
      bookedAt?: string;
    }): Promise<void> {
      if (!(await deliveryExists(orm.em, deliveryId))) {
        const message = 'The booking row is not committed';
        if (bookedAt && Date.now() - Date.parse(bookedAt) >= settings.bookingCommitGraceSeconds * 1000) {
          throw ApplicationFailure.nonRetryable(message, 'BookingNotFound');
        }
        throw ApplicationFailure.retryable(`${message} yet`, 'BookingNotFound');
      }
      if (withCodes) {
        const em = orm.em.fork();
        await textCodes(em, await em.findOneOrFail(DeliverySchema, { id: deliveryId }));
      }
    },

    /**
     * Texts the hand-over codes of an `otp` delivery, retried until the SMS provider takes them.
     * A delivery that has ended needs no code, so an attempt after that sends nothing.
     */
    async textHandoverCodes({ deliveryId }: { deliveryId: string }): Promise<void> {
      const em = orm.em.fork();
      const delivery = await em.findOne(DeliverySchema, { id: deliveryId });
      if (!delivery) throw ApplicationFailure.nonRetryable(`Delivery ${deliveryId} was not found`, 'BookingNotFound');
      if (isTerminal(delivery.status)) return;
      await textCodes(em, delivery);
    },
  };
}
