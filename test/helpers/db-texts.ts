import type { Orm } from '../../db/orm';
import { ago, write, type Age } from './db';

// The outbox is read through db/sms-outbox.ts (readOutbox, readDeliveryTexts), as the service reads it.

/** Puts a text in the outbox as if it had been sent `age` ago, about `deliveryId` if given: data for the outbox's readers. */
export function putInOutbox(orm: Orm, recipient: string, body: string, age: Age = {}, deliveryId: string | null = null): Promise<void> {
  const when = ago(age);
  return write(orm, `insert into sms_outbox (recipient, body, delivery_id, created_at) values (?, ?, ?, ${when.sql})`, [
    recipient,
    body,
    deliveryId,
    ...when.params,
  ]);
}
