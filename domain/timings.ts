/**
 * The durations and limits a delivery workflow runs with. They are settings (config/settings.ts
 * reads each from the environment) passed into every workflow's input, so tests shrink them and a
 * running workflow keeps the values it started with.
 */
export interface DeliveryTimings {
  /** How long a pending delivery looks for a rider before it expires. */
  dispatchTimeoutSeconds: number;
  /** How often the offer radius widens while no rider has accepted. */
  dispatchWidenSeconds: number;
  dispatchInitialRadiusKm: number;
  dispatchMaxRadiusKm: number;
  webhookRetryInitialSeconds: number;
  webhookRetryCoefficient: number;
  webhookTimeoutSeconds: number;
  roboRiderStepSeconds: number;
  /** How often a pending debit is polled when no callback has confirmed it. */
  paymentPollSeconds: number;
  /** How long a debit may stay unconfirmed before it is recorded failed (and left to reconciliation). */
  paymentConfirmLimitSeconds: number;
  /** First wait before a debit the network did not answer is tried again (doubling each time). */
  debitRetryInitialSeconds: number;
  /** Wrong hand-over codes allowed at one drop before it is locked. */
  otpMaxAttempts: number;
  /** How long a drop stays locked after too many wrong codes. */
  otpLockSeconds: number;
}

const TIMING_KEYS: readonly (keyof DeliveryTimings)[] = [
  'dispatchTimeoutSeconds',
  'dispatchWidenSeconds',
  'dispatchInitialRadiusKm',
  'dispatchMaxRadiusKm',
  'webhookRetryInitialSeconds',
  'webhookRetryCoefficient',
  'webhookTimeoutSeconds',
  'roboRiderStepSeconds',
  'paymentPollSeconds',
  'paymentConfirmLimitSeconds',
  'debitRetryInitialSeconds',
  'otpMaxAttempts',
  'otpLockSeconds',
];

/** The timings alone, out of the whole settings (which hold secrets that must not enter history). */
export function deliveryTimings(settings: DeliveryTimings): DeliveryTimings {
  return Object.fromEntries(TIMING_KEYS.map((key) => [key, settings[key]])) as unknown as DeliveryTimings;
}
