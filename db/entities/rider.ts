import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A rider. `activeDeliveryId` is unique, so the database itself holds a rider to one job. */
export const RiderSchema = defineEntity({
  name: 'Rider',
  tableName: 'riders',
  properties: (p) => ({
    id: p.uuid().primary(),
    name: p.text(),
    vehicle: p.text().nullable(),
    rating: p.decimal('number').nullable(),
    tokenHash: p.text().nullable().hidden(),
    isRobo: p.boolean().default(false),
    online: p.boolean().default(false),
    lat: p.double().$type<number>().nullable(),
    lng: p.double().$type<number>().nullable(),
    locatedAt: p.datetime().nullable(),
    activeDeliveryId: p.uuid().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type Rider = InferEntity<typeof RiderSchema>;
