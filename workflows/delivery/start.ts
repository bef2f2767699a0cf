import type { WorkflowStartOptions } from '@temporalio/client';
import type { KeyMode } from '../../domain/api-key';
import type { LatLng } from '../../domain/geo';
import type { VerificationMethod } from '../../domain/lifecycle';
import type { SandboxRider } from '../../domain/sandbox-rider';
import { deliveryWorkflowId } from '../../domain/reference';
import { deliveryTimings, type DeliveryTimings } from '../../domain/timings';
import {
  DeliveryReferenceKey,
  DeliveryStatusKey,
  PartnerIdKey,
  PaymentStatusKey,
  type DeliveryWorkflow,
  type DeliveryWorkflowInput,
} from '../messages';

/**
 * How a delivery's workflow is started. Two callers start it, the API right after it commits a
 * booking and the booking sweeper for a booking left without one (activities/booking-sweep.ts),
 * and both build the start here, so a delivery runs alike whichever of them started it.
 */

/** What a booking says that its workflow needs. */
export interface BookedDelivery {
  id: string;
  partnerId: string;
  mode: KeyMode;
  reference: string;
  pickup: LatLng;
  /** Additional stops in visiting order, before the final drop-off. */
  stops: LatLng[];
  dropoff: LatLng;
  verificationMethod: VerificationMethod;
  scheduledAt: Date | null;
  /** Who rides a test-mode delivery; null in live mode (and for test bookings from before it was kept). */
  sandboxRider: SandboxRider | null;
}

/**
 * The workflow's input. A scheduled time is passed on as it is, past or not: the workflow compares
 * it with its own clock (a past one dispatches at once), so whoever starts it reads no clock.
 */
export function deliveryWorkflowInput(booking: BookedDelivery, settings: DeliveryTimings): DeliveryWorkflowInput {
  const { scheduledAt } = booking;
  return {
    deliveryId: booking.id,
    partnerId: booking.partnerId,
    mode: booking.mode,
    reference: booking.reference,
    pickup: booking.pickup,
    stops: booking.stops,
    dropoff: booking.dropoff,
    verificationMethod: booking.verificationMethod,
    ...(scheduledAt ? { scheduledAt: scheduledAt.toISOString() } : {}),
    // The timings alone: settings also hold secrets, which must not enter history.
    timings: deliveryTimings(settings),
    // Test mode only: a live delivery has real riders whatever its row says.
    ...(booking.mode === 'test' ? { sandboxRider: booking.sandboxRider ?? 'robo' } : {}),
  };
}

/**
 * The task queue a mode's workflows run on: test mode's is its own, beside the live one
 * (TEMPORAL_TASK_QUEUE), so a flood of test-mode work waits for the test workers' slots, never
 * for the live ones. A workflow's activities and children follow it onto its queue.
 */
export function taskQueueFor(liveQueue: string, mode: KeyMode): string {
  return mode === 'test' ? `${liveQueue}-test` : liveQueue;
}

/** The workflow's id, task queue (its mode's, beside `liveQueue`), input and the search attributes it begins with. */
export function deliveryStartOptions(input: DeliveryWorkflowInput, liveQueue: string): WorkflowStartOptions<DeliveryWorkflow> {
  return {
    workflowId: deliveryWorkflowId(input.deliveryId),
    taskQueue: taskQueueFor(liveQueue, input.mode),
    args: [input],
    typedSearchAttributes: [
      { key: DeliveryStatusKey, value: 'pending' },
      { key: PaymentStatusKey, value: 'pending' },
      { key: PartnerIdKey, value: input.partnerId },
      { key: DeliveryReferenceKey, value: input.reference },
    ],
  };
}
