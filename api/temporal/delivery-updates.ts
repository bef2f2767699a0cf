import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Settings } from '../../config/settings';
import { deliveryWorkflowId } from '../../domain/reference';
import type { Refusal } from '../../domain/steps';
import type { DeliveryState } from '../../workflows/messages';
import { ApiError } from '../api-error';
import { isRefusalKind, refusalError } from '../refusals';
import { withinTemporalDeadline } from './deadline';

/**
 * What a command makes of a delivery whose workflow had already ended when the command reached it
 * (the delivery's recorded status is given): an error to answer with, or `done` when the ended
 * delivery is what the command asked for.
 */
export type WhenEnded = (status: string) => ApiError | 'done';

/** The default: a finished delivery refuses every message, with its status in details. */
export const refuseEnded: WhenEnded = (status) => ApiError.badRequest(`The delivery is ${status}`, { status });

/**
 * Sends a message that needs an answer to a delivery workflow, as a Temporal Update, and maps a
 * refusal by its validator or handler to the contract's errors. Answers the delivery's state after
 * the message, or null when the workflow had ended and `whenEnded` said that is what was asked.
 */
export async function sendDeliveryUpdate(
  deps: { temporal: Client; settings: Settings },
  deliveryId: string,
  send: (handle: WorkflowHandle) => Promise<DeliveryState>,
  currentStatus: () => Promise<string | null>,
  whenEnded: WhenEnded = refuseEnded,
): Promise<DeliveryState | null> {
  try {
    return await withinTemporalDeadline(deps, () => sendUntilProcessed(() => send(deps.temporal.workflow.getHandle(deliveryWorkflowId(deliveryId)))));
  } catch (error) {
    if (isUnprocessed(error)) throw ApiError.unavailable('The delivery is busy with other messages; try again shortly');
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      const failure = error.cause;
      const kind = failure.type ?? undefined;
      if (isRefusalKind(kind)) {
        const details = (failure.details?.[0] ?? {}) as Refusal['details'];
        throw refusalError({ kind, message: failure.message, details });
      }
    }
    if (error instanceof WorkflowNotFoundError || isCompletedError(error)) {
      // The workflow has finished, after the caller read the delivery: it may have just ended.
      const status = await currentStatus();
      if (status === null) throw ApiError.notFound('Unknown delivery');
      const answer = whenEnded(status);
      if (answer === 'done') return null;
      throw answer;
    }
    throw error;
  }
}

/** How many times an update the server turned away unprocessed is sent before the API answers 503. */
export const UNPROCESSED_TRIES = 3;

/**
 * The server answers `UnprocessedUpdate` when the workflow task that carried an update ended
 * without the worker taking or refusing it (seen with many updates at once while a local activity
 * runs). The update never reached the delivery, so sending it again is safe.
 */
async function sendUntilProcessed<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!isUnprocessed(error) || attempt >= UNPROCESSED_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

function isUnprocessed(error: unknown): boolean {
  return error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type === 'UnprocessedUpdate';
}

function isCompletedError(error: unknown): boolean {
  return /already completed|workflow execution already/i.test((error as Error)?.message ?? '');
}
