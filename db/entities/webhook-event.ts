import { defineEntity, type InferEntity } from '@mikro-orm/core';

export type WebhookEventState = 'pending' | 'delivered' | 'failed' | 'skipped';

/** A callback to send. `body` holds the exact bytes fixed when the status changed, until redacted. */
export const WebhookEventSchema = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_events',
  properties: (p) => ({
    id: p.uuid().primary(),
    partnerId: p.uuid(),
    mode: p.text().$type<'live' | 'test'>(),
    /** Null for a dashboard test event. */
    deliveryId: p.uuid().nullable(),
    event: p.text(),
    /** Null once the delivery's recipients were redacted (RETENTION_DAYS): the log entry stays, the body goes. */
    body: p.text().nullable(),
    state: p.text().$type<WebhookEventState>().default('pending'),
    attempts: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastAttemptAt: p.datetime().nullable(),
  }),
});
export type WebhookEvent = InferEntity<typeof WebhookEventSchema>;
