import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { DeliveryStatus, PackageSize, PaymentStatus, VerificationMethod } from '../../domain/lifecycle';
import type { SandboxRider } from '../../domain/sandbox-rider';

/** The read model of a delivery. Only the delivery workflow's activities change its status. */
export const DeliverySchema = defineEntity({
  name: 'Delivery',
  tableName: 'deliveries',
  properties: (p) => ({
    id: p.uuid().primary(),
    partnerId: p.uuid(),
    mode: p.text().$type<'live' | 'test'>(),
    reference: p.text(),
    status: p.text().$type<DeliveryStatus>().default('pending'),
    paymentStatus: p.text().$type<PaymentStatus>().default('pending'),
    paymentMethodId: p.uuid(),
    pickupAddress: p.text(),
    pickupLat: p.double().$type<number>(),
    pickupLng: p.double().$type<number>(),
    dropoffAddress: p.text(),
    dropoffLat: p.double().$type<number>(),
    dropoffLng: p.double().$type<number>(),
    packageSize: p.text().$type<PackageSize>(),
    packageDescription: p.text().nullable(),
    recipientName: p.text(),
    recipientPhone: p.text(),
    verificationMethod: p.text().$type<VerificationMethod>().default('none'),
    scheduledAt: p.datetime().nullable(),
    /** Who rides a test-mode delivery; null in live mode (and for test bookings from before it was kept: the robo rider). */
    sandboxRider: p.text().$type<SandboxRider>().nullable(),
    riderId: p.uuid().nullable(),
    baseFare: p.integer(),
    distanceM: p.integer(),
    distanceFee: p.integer(),
    serviceFee: p.integer(),
    totalFare: p.integer(),
    deliveredAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type Delivery = InferEntity<typeof DeliverySchema>;
