/**
 * The delivery state machine of the contract ("States and transitions"), in one table.
 * The step rules of domain/steps.ts, which the workflow and the API both apply, are built on it.
 */
export const DELIVERY_STATUSES = [
  'pending',
  'accepted',
  'picked_up',
  'in_transit',
  'delivered',
  'cancelled',
  'expired',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Each status in words, as the dashboard and the hosted tracking page show it. */
export const DELIVERY_STATUS_NAMES: Readonly<Record<DeliveryStatus, string>> = {
  pending: 'Pending',
  accepted: 'Accepted',
  picked_up: 'Picked up',
  in_transit: 'In transit',
  delivered: 'Delivered',
  cancelled: 'Cancelled',
  expired: 'Expired',
};

export const TERMINAL_STATUSES: readonly DeliveryStatus[] = ['delivered', 'cancelled', 'expired'];

/** Which status may follow which. A delivery moves forward only. */
export const TRANSITIONS: Readonly<Record<DeliveryStatus, readonly DeliveryStatus[]>> = {
  pending: ['accepted', 'cancelled', 'expired'],
  accepted: ['picked_up', 'cancelled'],
  picked_up: ['in_transit'],
  in_transit: ['delivered'],
  delivered: [],
  cancelled: [],
  expired: [],
};

/** Statuses in which a partner may still cancel (the rider does not hold the parcel yet). */
export const CANCELLABLE: readonly DeliveryStatus[] = DELIVERY_STATUSES.filter((status) => TRANSITIONS[status].includes('cancelled'));

/**
 * Whether a partner's cancel is taken: in a cancellable status, and again once cancelled (a
 * repeat answers the cancelled delivery, DESIGN section 9). The API and the workflow both ask it.
 */
export function canCancel(status: DeliveryStatus): boolean {
  return status === 'cancelled' || CANCELLABLE.includes(status);
}

/** Statuses in which a rider holds the job. */
export const ACTIVE_FOR_RIDER: readonly DeliveryStatus[] = ['accepted', 'picked_up', 'in_transit'];

export function canTransition(from: DeliveryStatus, to: DeliveryStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isTerminal(status: DeliveryStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** The webhook event a status change emits; `pending` emits none. */
export function eventNameFor(status: DeliveryStatus): string | null {
  return status === 'pending' ? null : `delivery.${status}`;
}

export const PAYMENT_STATUSES = ['pending', 'paid', 'failed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const VERIFICATION_METHODS = ['none', 'otp', 'photo'] as const;
export type VerificationMethod = (typeof VERIFICATION_METHODS)[number];

export const PACKAGE_SIZES = ['small', 'medium', 'large'] as const;
export type PackageSize = (typeof PACKAGE_SIZES)[number];

/** The final drop-off's position among a delivery's hand-overs; additional stops use their index. */
export const FINAL_DROP = -1;

/** Each additional stop is `pending` until its parcel is handed over. */
export type StopStatus = 'pending' | 'delivered';
