import { ACTIVE_FOR_RIDER, canCancel, canTransition, isTerminal, type DeliveryStatus, type VerificationMethod } from './lifecycle';

/**
 * Whether a rider's step or a partner's cancel is taken, decided once for every caller: the
 * workflow's update validators check it for real, and the API checks it first on the read model
 * (a fast, clear answer that holds while Temporal is unreachable, and no photo stored for a step
 * that would be refused). The message a rider or partner reads is written here only.
 */

/** A delivery as the rules see it: the workflow's own state, or the API's read of Postgres. */
export interface DeliverySnapshot {
  status: DeliveryStatus;
  stopsCompleted: number;
  stopsTotal: number;
  verificationMethod: VerificationMethod;
  /** The rider holding the job; null while nobody does. */
  riderId: string | null;
}

/** The proof a rider brings to a hand-over; `none` when the request carries neither code nor photo. */
export type ProofKind = 'none' | 'otp' | 'photo';

export type Step =
  | { kind: 'accept' }
  | { kind: 'pickup'; riderId: string }
  | { kind: 'depart'; riderId: string }
  | { kind: 'complete_stop'; riderId: string; index: number; proof: ProofKind }
  | { kind: 'deliver'; riderId: string; proof: ProofKind }
  | { kind: 'cancel' }
  /** A test-mode partner's sandbox ends a job nobody took now, as the dispatch deadline would. */
  | { kind: 'expire' }
  /** An operator hands the job to another rider, or offers it again (`toRiderId` null). */
  | { kind: 'reassign'; toRiderId: string | null }
  /**
   * A partner changes a booking: the additional stops it names by index, and whether it moves or
   * renames a place (only while pending) rather than only who receives a drop and what the parcel is.
   */
  | { kind: 'change_booking'; stops: number[]; places: boolean };

/**
 * Kinds of refusal. The workflow raises each as the failure type of that name, and the API maps
 * each to one HTTP status (api/refusals.ts).
 */
export const REFUSAL = {
  /** The job went to another rider, or is no longer pending, or the rider holds another: 409. */
  conflict: 'Conflict',
  /** A step the delivery's status or stop order does not allow: 400, the status in details. */
  invalidTransition: 'InvalidTransition',
  /** The delivery is not this rider's, or has no such stop: 404. */
  notFound: 'NotYourJob',
  /** Missing or wrong proof of hand-over: 400. */
  verificationFailed: 'VerificationFailed',
} as const;
export type RefusalKind = (typeof REFUSAL)[keyof typeof REFUSAL];

export interface Refusal {
  kind: RefusalKind;
  message: string;
  /** Always the current status, and what a rider app needs to explain the refusal. */
  details: { status: DeliveryStatus } & Record<string, unknown>;
}

const refuse = (kind: RefusalKind, message: string, status: DeliveryStatus, details: Record<string, unknown> = {}): Refusal => ({
  kind,
  message,
  details: { status, ...details },
});

/** A rider's step in words, for the answer that refuses it. */
const STEP_NAMES = { pickup: 'pick up', depart: 'depart', complete_stop: 'complete a stop', deliver: 'deliver' } as const;

/** The status each rider step leads to; a stop is handed over where the final drop could be. */
const STEP_LEADS_TO = { pickup: 'picked_up', depart: 'in_transit', complete_stop: 'delivered', deliver: 'delivered' } as const;

/** Refusals that are not about one snapshot: who may see a job, and who may take one. */
/** What a rider is told of a job that is not theirs: nothing but this, not even its status. */
export const NOT_YOUR_JOB = 'This delivery is not yours';
export const notYourJob = (status: DeliveryStatus): Refusal => refuse(REFUSAL.notFound, NOT_YOUR_JOB, status);
export const riderBusy = (status: DeliveryStatus): Refusal => refuse(REFUSAL.conflict, 'Finish your current job first', status);
export const noLongerAvailable = (status: DeliveryStatus): Refusal => refuse(REFUSAL.conflict, 'This job is no longer available', status);
export const riderNotFree = (status: DeliveryStatus): Refusal =>
  refuse(REFUSAL.conflict, 'That rider is not free to take the job (unknown, revoked, or holding another)', status);
export const handoverInProgress = (status: DeliveryStatus): Refusal =>
  refuse(REFUSAL.invalidTransition, 'Another hand-over of this job is being recorded; try again in a moment', status);
export const anotherRiderAccepting = (status: DeliveryStatus): Refusal =>
  refuse(REFUSAL.conflict, 'Another rider is taking this job', status);

/** A change of places priced on a route another change has moved since (or is moving now). */
export const routeChangedMeanwhile = (status: DeliveryStatus): Refusal =>
  refuse(REFUSAL.conflict, 'Another change of places was made meanwhile; send this one again', status);

/** A partner's change of places is being written: the job a rider would accept is about to move. */
export const placesBeingChanged = (status: DeliveryStatus): Refusal =>
  refuse(REFUSAL.conflict, 'The partner is changing where this job goes; try again in a moment', status);

/** Why `step` is refused on `delivery`, or null when the contract's rules allow it. */
export function refusalFor(delivery: DeliverySnapshot, step: Step): Refusal | null {
  switch (step.kind) {
    case 'accept':
      return acceptRefusal(delivery);
    case 'cancel':
      return cancelRefusal(delivery.status);
    case 'expire':
      return expireRefusal(delivery.status);
    case 'reassign':
      return reassignRefusal(delivery, step.toRiderId);
    case 'change_booking':
      return changeBookingRefusal(delivery, step.stops, step.places);
    default:
      return riderStepRefusal(delivery, step);
  }
}

/**
 * The first rider wins while the job is pending, or while a job an operator took from its rider
 * is offered again (it keeps its status, and nobody holds it).
 */
export function acceptRefusal({ status, riderId }: Pick<DeliverySnapshot, 'status' | 'riderId'>): Refusal | null {
  if (canTransition(status, 'accepted')) return null;
  return riderId === null && ACTIVE_FOR_RIDER.includes(status) ? null : noLongerAvailable(status);
}

/** Only a job under way can change riders; handing it to the rider who holds it changes nothing. */
export function reassignRefusal({ status, riderId }: Pick<DeliverySnapshot, 'status' | 'riderId'>, toRiderId: string | null): Refusal | null {
  if (!ACTIVE_FOR_RIDER.includes(status)) return refuse(REFUSAL.invalidTransition, `A delivery that is ${status} has no rider to replace`, status);
  if (toRiderId !== null && toRiderId === riderId) return refuse(REFUSAL.conflict, 'The job is already this rider’s', status);
  return null;
}

/** A partner's cancel is taken while no rider holds the parcel, and again once cancelled. */
export function cancelRefusal(status: DeliveryStatus): Refusal | null {
  return canCancel(status) ? null : refuse(REFUSAL.invalidTransition, `A delivery that is ${status} can no longer be cancelled`, status);
}

/** Only a job still pending, which no rider has accepted, can expire: the dispatch deadline's rule. */
export function expireRefusal(status: DeliveryStatus): Refusal | null {
  return canTransition(status, 'expired') ? null : refuse(REFUSAL.invalidTransition, `A delivery that is ${status} can no longer expire`, status);
}

/**
 * A drop's recipient and parcel may change until it is handed over: an ended delivery takes no
 * change, and neither does a stop already handed over (the final drop is handed over last). Places
 * change only while the delivery is pending: once a rider has taken the job, it is theirs as priced.
 */
export function changeBookingRefusal(
  { status, stopsCompleted, stopsTotal }: Pick<DeliverySnapshot, 'status' | 'stopsCompleted' | 'stopsTotal'>,
  stops: number[],
  places: boolean,
): Refusal | null {
  if (isTerminal(status)) return refuse(REFUSAL.invalidTransition, `A delivery that is ${status} can no longer be changed`, status);
  if (places && status !== 'pending') {
    return refuse(REFUSAL.invalidTransition, `Addresses and coordinates change only while the delivery is pending; it is ${status}`, status);
  }
  for (const index of stops) {
    if (!Number.isInteger(index) || index < 0 || index >= stopsTotal) {
      return refuse(REFUSAL.invalidTransition, `This delivery has no additional stop ${index}`, status, { additional_stops: `has no stop ${index}` });
    }
    if (index < stopsCompleted) {
      return refuse(REFUSAL.invalidTransition, `Stop ${index} is already handed over`, status, { additional_stops: `stop ${index} is already handed over` });
    }
  }
  return null;
}

function riderStepRefusal(delivery: DeliverySnapshot, step: Extract<Step, { riderId: string }>): Refusal | null {
  const { status, stopsCompleted, stopsTotal } = delivery;
  // A job another rider holds is unknown to this one, whatever its status.
  if (delivery.riderId !== null && delivery.riderId !== step.riderId) return notYourJob(status);
  if (!canTransition(status, STEP_LEADS_TO[step.kind])) {
    return refuse(REFUSAL.invalidTransition, `Cannot ${STEP_NAMES[step.kind]} while the delivery is ${status}`, status);
  }
  if (delivery.riderId === null) return notYourJob(status);
  if (step.kind === 'complete_stop') {
    if (!Number.isInteger(step.index) || step.index < 0 || step.index >= stopsTotal) {
      return refuse(REFUSAL.notFound, 'This delivery has no such stop', status);
    }
    if (step.index < stopsCompleted) return refuse(REFUSAL.invalidTransition, 'This stop is already handed over', status);
    if (step.index > stopsCompleted) {
      return refuse(REFUSAL.invalidTransition, `Stops are handed over in order; next is stop ${stopsCompleted}`, status, {
        next_stop: stopsCompleted,
      });
    }
  }
  if (step.kind === 'deliver' && stopsCompleted < stopsTotal) {
    return refuse(REFUSAL.invalidTransition, 'Every additional stop must be handed over first', status, { next_stop: stopsCompleted });
  }
  return step.kind === 'complete_stop' || step.kind === 'deliver' ? proofRefusal(delivery, step.proof) : null;
}

/** The proof the booking asked for must come with the hand-over; whether it is right is checked later. */
function proofRefusal({ verificationMethod, status }: DeliverySnapshot, proof: ProofKind): Refusal | null {
  if (verificationMethod === 'otp' && proof !== 'otp') {
    return refuse(REFUSAL.verificationFailed, 'The recipient’s code is required', status, { otp: 'is required' });
  }
  if (verificationMethod === 'photo' && proof !== 'photo') {
    return refuse(REFUSAL.verificationFailed, 'A photo of the hand-over is required', status, { photo: 'is required (multipart field "photo")' });
  }
  return null;
}
