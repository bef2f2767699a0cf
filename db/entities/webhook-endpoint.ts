import { defineEntity, type InferEntity } from '@mikro-orm/core';

/**
 * A partner's callback URL for one mode. The secret must be readable to sign callbacks, so it is
 * kept as is; it is never returned except in the answer that sets it.
 */
export const WebhookEndpointSchema = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: (p) => ({
    partnerId: p.uuid().primary(),
    mode: p.text().$type<'live' | 'test'>().primary(),
    url: p.text().nullable(),
    secret: p.text().nullable().hidden(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
  primaryKeys: ['partnerId', 'mode'],
});
export type WebhookEndpoint = InferEntity<typeof WebhookEndpointSchema>;
