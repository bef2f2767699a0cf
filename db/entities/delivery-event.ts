import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { DeliveryStatus } from '../../domain/lifecycle';

/** One entry of a delivery's status trail, with the coordinate where the change happened. */
export const DeliveryEventSchema = defineEntity({
  name: 'DeliveryEvent',
  tableName: 'delivery_events',
  properties: (p) => ({
    id: p.bigint('number').primary().autoincrement(),
    deliveryId: p.uuid(),
    status: p.text().$type<DeliveryStatus>(),
    lat: p.double().$type<number>().nullable(),
    lng: p.double().$type<number>().nullable(),
    createdAt: p.datetime(),
  }),
});
export type DeliveryEvent = InferEntity<typeof DeliveryEventSchema>;
