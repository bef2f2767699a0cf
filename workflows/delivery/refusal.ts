import { ApplicationFailure } from '@temporalio/workflow';
import type { DeliveryStatus } from '../../domain/lifecycle';
import { REFUSAL, type Refusal } from '../../domain/steps';
import type { CodeRefusal } from './handover-code-lockout';

/**
 * A message the delivery refuses, as the failure the API maps to its answer (api/refusals.ts):
 * the refusal's kind is the failure's type, and details carry the current status, so a rider app
 * can show where the job stands.
 */
export function failureOf({ kind, message, details }: Refusal): ApplicationFailure {
  return ApplicationFailure.create({ type: kind, message, details: [details], nonRetryable: true });
}

export function throwIfRefused(refusal: Refusal | null): void {
  if (refusal) throw failureOf(refusal);
}

/** A hand-over code refused by the lock-out or the comparison: 400 with the `otp` detail. */
export function codeFailure(refused: CodeRefusal, status: DeliveryStatus): ApplicationFailure {
  return failureOf({ kind: REFUSAL.verificationFailed, message: refused.message, details: { status, otp: refused.otp } });
}
