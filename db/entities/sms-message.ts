import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A text message in the offline SMS outbox. */
export const SmsMessageSchema = defineEntity({
  name: 'SmsMessage',
  tableName: 'sms_outbox',
  properties: (p) => ({
    id: p.bigint('number').primary().autoincrement(),
    recipient: p.text(),
    body: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type SmsMessage = InferEntity<typeof SmsMessageSchema>;
