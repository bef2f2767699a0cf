import { randomInt } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { DeliverySchema, DeliveryStopSchema } from '../db/entities';
import { FINAL_DROP, hashHandoverCode } from '../domain/handover-code';
import type { ActivityDeps } from './deps';

export function createBookingActivities({ orm, sms }: ActivityDeps) {
  return {
    /**
     * First step of every delivery workflow: the booking row must exist (the API commits it
     * right after starting the workflow). For `otp` deliveries it texts each recipient a code;
     * the codes never enter workflow history, only their hashes reach Postgres.
     */
    async beginDelivery({ deliveryId }: { deliveryId: string }): Promise<void> {
      const em = orm.em.fork();
      const delivery = await em.findOne(DeliverySchema, { id: deliveryId });
      if (!delivery) throw ApplicationFailure.retryable('The booking row is not committed yet', 'BookingNotFound');
      if (delivery.verificationMethod !== 'otp') return;
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
    },
  };
}
