import type { Delivery } from '../../db/entities';

/** A delivery's row as the reads hand it to the views: a small booking at Makola for the airport. */
export function deliveryRow(fields: Partial<Record<keyof Delivery, unknown>>): Delivery {
  return {
    reference: 'DLV-5F0C2B9A',
    paymentStatus: 'paid',
    pickupAddress: 'Makola Market, Accra',
    pickupLat: 5.5497,
    pickupLng: -0.2096,
    dropoffAddress: 'Kotoka International Airport',
    dropoffLat: 5.6052,
    dropoffLng: -0.1668,
    packageSize: 'small',
    recipientName: 'Ama Serwaa',
    recipientPhone: '+233241234567',
    verificationMethod: 'none',
    baseFare: 1000,
    distanceM: 7200,
    distanceFee: 720,
    serviceFee: 200,
    totalFare: 1920,
    createdAt: new Date('2026-11-29T10:00:00.000Z'),
    ...fields,
  } as unknown as Delivery;
}
