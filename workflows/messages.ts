import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { DeliveryStatus, PaymentStatus, VerificationMethod } from '../domain/lifecycle';
import type { LatLng } from '../domain/geo';
import type { SandboxRider } from '../domain/sandbox-rider';
import type { DeliveryTimings } from '../domain/timings';
import type { DeliveryChange } from '../domain/delivery-change';

export type { DeliveryChange, DropChange, Repricing } from '../domain/delivery-change';

/**
 * Everything that crosses the boundary of a delivery workflow: its input, the messages the API
 * and the robo rider send it, its query and its search attributes. Pure; the API imports it too.
 */

export interface DeliveryWorkflowInput {
  deliveryId: string;
  partnerId: string;
  mode: 'live' | 'test';
  reference: string;
  pickup: LatLng;
  /** Additional stops in visiting order, before the final drop-off. */
  stops: LatLng[];
  dropoff: LatLng;
  verificationMethod: VerificationMethod;
  /** ISO time to start dispatch; absent for immediate dispatch. */
  scheduledAt?: string;
  timings: DeliveryTimings;
  /**
   * Who rides a test-mode delivery (domain/sandbox-rider.ts). Absent in live mode, and in every
   * history recorded before it existed: those are ridden by the robo rider, as they were.
   */
  sandboxRider?: SandboxRider;
}

/**
 * Proof a rider brings to a hand-over. A code reaches the workflow as its hash (domain/handover-code-hash.ts),
 * so the code itself never enters history; a photo is stored by the API first.
 */
export type HandoverProof = { kind: 'none' } | { kind: 'otp'; codeHash: string } | { kind: 'photo'; storageKey: string };

export interface RiderAction {
  riderId: string;
  /** Where the rider was when acting, if known. */
  lat?: number | null;
  lng?: number | null;
}

export interface HandoverAction extends RiderAction {
  proof: HandoverProof;
}

export interface StopHandoverAction extends HandoverAction {
  index: number;
}

/**
 * The delivery workflow's type name and signature, for starting it by name: code outside
 * workflows/ need not import the workflow itself (and the activities it imports).
 */
export const DELIVERY_WORKFLOW_TYPE = 'deliveryWorkflow';
export type DeliveryWorkflow = (input: DeliveryWorkflowInput) => Promise<DeliveryState>;

export interface DeliveryState {
  status: DeliveryStatus;
  paymentStatus: PaymentStatus;
  riderId: string | null;
  stopsTotal: number;
  stopsCompleted: number;
  webhooksOutstanding: number;
}

// Failure types of refused messages are the refusal kinds of domain/steps.ts (REFUSAL).

/**
 * Failure type of a debit try that failed on our own Postgres: the workflow keeps retrying it
 * without spending the network's budget of tries.
 */
export const DEBIT_STORE_UNAVAILABLE = 'DebitStoreUnavailable';

export const acceptUpdate = defineUpdate<DeliveryState, [RiderAction]>('accept');
export const pickupUpdate = defineUpdate<DeliveryState, [RiderAction]>('pickup');
export const departUpdate = defineUpdate<DeliveryState, [RiderAction]>('depart');
export const completeStopUpdate = defineUpdate<DeliveryState, [StopHandoverAction]>('completeStop');
export const deliverUpdate = defineUpdate<DeliveryState, [HandoverAction]>('deliver');
export const cancelUpdate = defineUpdate<DeliveryState, []>('cancel');
/**
 * A partner's sandbox ends a pending job of a manual sandbox rider now, as the dispatch deadline
 * would; refused for any other delivery.
 */
export const expireUpdate = defineUpdate<DeliveryState, []>('expire');
/** An operator hands the job to another free rider, or offers it again nearby (`riderId` null); the status stays. */
export const reassignUpdate = defineUpdate<DeliveryState, [{ riderId: string | null }]>('reassign');
/** A partner changes who receives a drop, or what the parcel is, until that drop is handed over. */
export const changeBookingUpdate = defineUpdate<DeliveryState, [DeliveryChange]>('changeBooking');
/** The same update under the name histories recorded before places could change give it. */
export const changeContactsUpdate = defineUpdate<DeliveryState, [DeliveryChange]>('changeContacts');
/** The street watch found the job's rider silent (or heard from again): the `NeedsAttention` search attribute follows. */
export const attentionSignal = defineSignal<[{ needed: boolean }]>('attention');

/**
 * The gateway's confirmation of a debit, from its callback or the sandbox network. `reference`
 * names the debit (domain/debit-reference.ts); absent, or the delivery id, it is the booking's.
 */
export const paymentSettledSignal = defineSignal<[{ state: 'paid' | 'failed'; reason?: string; reference?: string }]>('paymentSettled');

export const stateQuery = defineQuery<DeliveryState>('state');

export const DeliveryStatusKey = defineSearchAttributeKey('DeliveryStatus', SearchAttributeType.KEYWORD);
export const PaymentStatusKey = defineSearchAttributeKey('PaymentStatus', SearchAttributeType.KEYWORD);
export const PartnerIdKey = defineSearchAttributeKey('PartnerId', SearchAttributeType.KEYWORD);
export const DeliveryReferenceKey = defineSearchAttributeKey('DeliveryReference', SearchAttributeType.KEYWORD);
/** An active job whose rider has gone silent: ops find it in the Temporal UI with `NeedsAttention = true`. */
export const NeedsAttentionKey = defineSearchAttributeKey('NeedsAttention', SearchAttributeType.BOOL);

export interface RoboRiderInput {
  deliveryId: string;
  route: LatLng[];
  stopsCount: number;
  stepSeconds: number;
}
