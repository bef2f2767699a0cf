import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { DeliveryStatus, PaymentStatus, VerificationMethod } from '../domain/lifecycle';
import type { LatLng } from '../domain/geo';

/**
 * Everything that crosses the boundary of a delivery workflow: its input, the messages the API
 * and the robo rider send it, its query and its search attributes. Pure; the API imports it too.
 */

/** Durations the workflow waits on, passed in so tests can shrink them. */
export interface DeliveryTimings {
  dispatchTimeoutSeconds: number;
  dispatchWidenSeconds: number;
  dispatchInitialRadiusKm: number;
  dispatchMaxRadiusKm: number;
  webhookRetryInitialSeconds: number;
  webhookRetryCoefficient: number;
  webhookTimeoutSeconds: number;
  roboRiderStepSeconds: number;
  paymentPollSeconds: number;
  /** First retry interval of a debit the network did not answer; 2 s when absent. */
  debitRetryInitialSeconds?: number;
}

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
}

/** Proof of hand-over checked by the API before it reaches the workflow (the code never enters history). */
export type HandoverProof = { kind: 'none' } | { kind: 'otp' } | { kind: 'photo'; storageKey: string };

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

export interface DeliveryState {
  status: DeliveryStatus;
  paymentStatus: PaymentStatus;
  riderId: string | null;
  stopsTotal: number;
  stopsCompleted: number;
  webhooksOutstanding: number;
}

/** Failure types a validator or handler raises, mapped to HTTP answers by the API. */
export const FAILURE = {
  /** Accept lost the race, or the job is no longer pending: 409. */
  conflict: 'Conflict',
  /** A message out of order for the current status: 400 with the status in details. */
  invalidTransition: 'InvalidTransition',
  /** The rider is not the one holding this job: 404. */
  notYourJob: 'NotYourJob',
  /** Missing or wrong proof of hand-over: 400. */
  verificationFailed: 'VerificationFailed',
} as const;

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

/** The gateway's confirmation of a debit, from its callback or the sandbox network. */
export const paymentSettledSignal = defineSignal<[{ state: 'paid' | 'failed'; reason?: string }]>('paymentSettled');

export const stateQuery = defineQuery<DeliveryState>('state');

export const DeliveryStatusKey = defineSearchAttributeKey('DeliveryStatus', SearchAttributeType.KEYWORD);
export const PaymentStatusKey = defineSearchAttributeKey('PaymentStatus', SearchAttributeType.KEYWORD);
export const PartnerIdKey = defineSearchAttributeKey('PartnerId', SearchAttributeType.KEYWORD);
export const DeliveryReferenceKey = defineSearchAttributeKey('DeliveryReference', SearchAttributeType.KEYWORD);

export interface RoboRiderInput {
  deliveryId: string;
  route: LatLng[];
  stopsCount: number;
  stepSeconds: number;
}
