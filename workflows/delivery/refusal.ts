import { ApplicationFailure } from '@temporalio/workflow';
import type { DeliveryStatus } from '../../domain/lifecycle';
import { FAILURE } from '../messages';

/**
 * A message the delivery refuses, as the failure the API maps to its answer (FAILURE in
 * messages.ts). Details carry the current status, so a rider app can show where the job stands.
 */
export function refusal(
  type: (typeof FAILURE)[keyof typeof FAILURE],
  message: string,
  status: DeliveryStatus,
  details: Record<string, unknown> = {},
): ApplicationFailure {
  return ApplicationFailure.create({ type, message, details: [{ status, ...details }], nonRetryable: true });
}
