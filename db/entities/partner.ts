import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A business account. Confirming the email is the only step before a key can be created. */
export const PartnerSchema = defineEntity({
  name: 'Partner',
  tableName: 'partners',
  properties: (p) => ({
    id: p.uuid().primary(),
    email: p.text(),
    businessName: p.text(),
    passwordHash: p.text().nullable().hidden(),
    emailConfirmedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type Partner = InferEntity<typeof PartnerSchema>;
