import { REFUSAL, type Refusal, type RefusalKind } from '../domain/steps';
import { ApiError } from './api-error';

/** The HTTP answer to each kind of refusal (domain/steps.ts), whether the API or the workflow refused. */
const ANSWERS: Record<RefusalKind, (refusal: Refusal) => ApiError> = {
  [REFUSAL.conflict]: ({ message, details }) => ApiError.conflict(message, details),
  // Nothing about a job that is not the rider's is told, not even its status.
  [REFUSAL.notFound]: ({ message }) => ApiError.notFound(message),
  [REFUSAL.invalidTransition]: ({ message, details }) => ApiError.badRequest(message, details),
  [REFUSAL.verificationFailed]: ({ message, details }) => ApiError.badRequest(message, details),
};

export function isRefusalKind(type: string | undefined): type is RefusalKind {
  return type !== undefined && Object.hasOwn(ANSWERS, type);
}

export function refusalError(refusal: Refusal): ApiError {
  return ANSWERS[refusal.kind](refusal);
}

/** Throws the refusal's answer, if there is one. */
export function throwIfRefused(refusal: Refusal | null): void {
  if (refusal) throw refusalError(refusal);
}
