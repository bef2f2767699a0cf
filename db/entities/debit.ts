import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { DebitState } from '../../integrations/mobile-money/gateway';

/** Our record of a delivery's debit; the delivery id is the reference sent to the gateway. */
export const DebitSchema = defineEntity({
  name: 'Debit',
  tableName: 'debits',
  properties: (p) => ({
    deliveryId: p.uuid().primary(),
    paymentMethodId: p.uuid(),
    gateway: p.text(),
    amount: p.integer(),
    state: p.text().$type<DebitState>().default('pending'),
    reason: p.text().nullable(),
    requestedAt: p.datetime().onCreate(() => new Date()),
    settledAt: p.datetime().nullable(),
  }),
});
export type Debit = InferEntity<typeof DebitSchema>;
