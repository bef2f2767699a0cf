import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { PackageSize, StopStatus } from '../../domain/lifecycle';

/** An additional drop of a multi-drop delivery, visited in `position` order before the final drop. */
export const DeliveryStopSchema = defineEntity({
  name: 'DeliveryStop',
  tableName: 'delivery_stops',
  properties: (p) => ({
    deliveryId: p.uuid().primary(),
    position: p.integer().primary(),
    dropoffAddress: p.text(),
    dropoffLat: p.double().$type<number>(),
    dropoffLng: p.double().$type<number>(),
    recipientName: p.text(),
    recipientPhone: p.text(),
    packageSize: p.text().$type<PackageSize>(),
    packageDescription: p.text().nullable(),
    status: p.text().$type<StopStatus>().default('pending'),
    deliveredAt: p.datetime().nullable(),
  }),
  primaryKeys: ['deliveryId', 'position'],
});
export type DeliveryStop = InferEntity<typeof DeliveryStopSchema>;
