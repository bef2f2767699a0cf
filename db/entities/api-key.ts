import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A partner's API key. Only the SHA-256 hash of the secret is kept. */
export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: (p) => ({
    id: p.uuid().primary(),
    partnerId: p.uuid(),
    mode: p.text().$type<'live' | 'test'>(),
    label: p.text(),
    prefix: p.text(),
    keyHash: p.text().hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  }),
});
export type ApiKey = InferEntity<typeof ApiKeySchema>;
