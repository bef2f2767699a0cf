import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** One HTTP attempt at sending a callback. */
export const WebhookAttemptSchema = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempts',
  properties: (p) => ({
    id: p.bigint('number').primary().autoincrement(),
    eventId: p.uuid(),
    attempt: p.integer(),
    url: p.text().nullable(),
    statusCode: p.integer().nullable(),
    latencyMs: p.integer().nullable(),
    error: p.text().nullable(),
    nextRetryAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type WebhookAttempt = InferEntity<typeof WebhookAttemptSchema>;
