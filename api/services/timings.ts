import type { Settings } from '../../config/settings';
import type { DeliveryTimings } from '../../workflows/messages';

/** The durations a delivery workflow runs with, from settings (tests shrink them). */
export function deliveryTimings(settings: Settings): DeliveryTimings {
  return {
    dispatchTimeoutSeconds: settings.dispatchTimeoutSeconds,
    dispatchWidenSeconds: settings.dispatchWidenSeconds,
    dispatchInitialRadiusKm: settings.dispatchInitialRadiusKm,
    dispatchMaxRadiusKm: settings.dispatchMaxRadiusKm,
    webhookRetryInitialSeconds: settings.webhookRetryInitialSeconds,
    webhookRetryCoefficient: settings.webhookRetryCoefficient,
    webhookTimeoutSeconds: settings.webhookTimeoutSeconds,
    roboRiderStepSeconds: settings.roboRiderStepSeconds,
    paymentPollSeconds: settings.paymentPollSeconds,
    debitRetryInitialSeconds: settings.debitRetryInitialSeconds,
  };
}
