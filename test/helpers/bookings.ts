import { randomUUID } from 'node:crypto';
import * as bookings from '../../db/bookings';
import type { Orm } from '../../db/orm';
import { poolTransaction } from '../../db/pool-query';
import { deliveryReference } from '../../domain/reference';
import type { BookingRequest, Delivery, PaymentMethod, PaymentMethodRequest } from '../../clients/typescript/src';
import { api } from './http';
import { makePartner, partnerClient } from './partners';

/** Sandbox test numbers (DESIGN section 6). */
export const SANDBOX = {
  ok: '+233241230001',
  named: '+233241231111',
  missing: '+233241230000',
  declines: '+233241232222',
  outage: '+233241233333',
  networkB: '+233201234567',
};

export const ACCRA = {
  makola: { lat: 5.5497, lng: -0.2096 },
  osu: { lat: 5.556, lng: -0.1823 },
  airport: { lat: 5.6052, lng: -0.1668 },
  legon: { lat: 5.6508, lng: -0.1869 },
};

export function bookingBody(overrides: Record<string, unknown> = {}) {
  return {
    pickup_address: 'Makola Market, Accra',
    pickup_lat: ACCRA.makola.lat,
    pickup_lng: ACCRA.makola.lng,
    dropoff_address: 'Kotoka International Airport, Accra',
    dropoff_lat: ACCRA.airport.lat,
    dropoff_lng: ACCRA.airport.lng,
    package_size: 'small',
    recipient_name: 'Ama Serwaa Mensah',
    recipient_phone: '+233241234567',
    payment_method: 'gateway',
    ...overrides,
  };
}

export function stopBody(overrides: Record<string, unknown> = {}) {
  return {
    dropoff_address: 'Osu Oxford Street, Accra',
    dropoff_lat: ACCRA.osu.lat,
    dropoff_lng: ACCRA.osu.lng,
    recipient_name: 'Yaw Boateng',
    recipient_phone: '+233201112233',
    package_size: 'small',
    ...overrides,
  };
}

/** Registers a sandbox Mobile Money account for the key's mode, through the partner client. */
export async function registerAccount(baseUrl: string, key: string, phone = SANDBOX.ok, provider = 'network_a'): Promise<PaymentMethod> {
  const account = { provider, phone, account_name: 'Test Shop Ltd' } as PaymentMethodRequest;
  return partnerClient(baseUrl, key).paymentMethods.create(account);
}

/**
 * Books through the partner client; anything but 201 throws its PartnerApiError. `overrides` is
 * loose on purpose (tests book odd shapes), so the body is the client's type by assertion only.
 */
export async function book(baseUrl: string, key: string, overrides: Record<string, unknown> = {}): Promise<Delivery> {
  return partnerClient(baseUrl, key).deliveries.create(bookingBody(overrides) as BookingRequest);
}

/**
 * A booking's rows committed with no workflow started, as an API process that died between the
 * commit and the start leaves them (or for an activity to run on). Returns the delivery id.
 */
export async function commitBookingRow(
  orm: Orm,
  owner: { partnerId: string; mode: 'live' | 'test'; paymentMethodId: string },
  {
    verificationMethod = 'none',
    sandboxRider = owner.mode === 'test' ? 'robo' : null,
  }: { verificationMethod?: 'none' | 'otp' | 'photo'; sandboxRider?: 'robo' | 'manual' | null } = {},
): Promise<string> {
  const id = randomUUID();
  const body = bookingBody();
  await poolTransaction(orm.em, (tx) =>
    bookings.insert(tx, {
      id,
      partnerId: owner.partnerId,
      mode: owner.mode,
      reference: deliveryReference(id),
      paymentMethodId: owner.paymentMethodId,
      pickupAddress: body.pickup_address,
      pickupLat: body.pickup_lat,
      pickupLng: body.pickup_lng,
      dropoffAddress: body.dropoff_address,
      dropoffLat: body.dropoff_lat,
      dropoffLng: body.dropoff_lng,
      packageSize: body.package_size,
      packageDescription: null,
      recipientName: body.recipient_name,
      recipientPhone: body.recipient_phone,
      verificationMethod,
      scheduledAt: null,
      sandboxRider,
      baseFare: 1000,
      distanceMeters: 7000,
      distanceFee: 1400,
      serviceFee: 200,
      totalFare: 2600,
      stops: [],
    }),
  );
  return id;
}

/** A partner with a live key and a sandbox Mobile Money account, and its keyed API client. */
export async function livePartner(stack: { orm: Orm; baseUrl: string }) {
  const partner = await makePartner(stack.orm);
  await registerAccount(stack.baseUrl, partner.liveKey);
  return { ...partner, client: api(stack.baseUrl, partner.liveKey) };
}
