import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { MobileMoneyProvider } from '../../integrations/mobile-money/gateway';

/** A registered Mobile Money account. Removal is soft: bookings already made still point at it. */
export const PaymentMethodSchema = defineEntity({
  name: 'PaymentMethod',
  tableName: 'payment_methods',
  properties: (p) => ({
    id: p.uuid().primary(),
    partnerId: p.uuid(),
    mode: p.text().$type<'live' | 'test'>(),
    provider: p.text().$type<MobileMoneyProvider>(),
    phone: p.text(),
    accountName: p.text(),
    isDefault: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    deletedAt: p.datetime().nullable(),
  }),
});
export type PaymentMethod = InferEntity<typeof PaymentMethodSchema>;
