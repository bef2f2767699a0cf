import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliveryTimings } from './messages';

/** A partner asked for a callback again: the same stored bytes, signed with the current secret. */
export async function webhookRedeliveryWorkflow(input: { eventId: string; timings: DeliveryTimings }): Promise<void> {
  const t = input.timings;
  // Same policy as the original send: 6 attempts in all, exponential backoff.
  const { sendWebhook } = proxyActivities<Activities>({
    startToCloseTimeout: `${t.webhookTimeoutSeconds + 5} seconds`,
    retry: {
      initialInterval: `${t.webhookRetryInitialSeconds} seconds`,
      backoffCoefficient: t.webhookRetryCoefficient,
      maximumInterval: `${t.webhookRetryInitialSeconds * t.webhookRetryCoefficient ** 4} seconds`,
      maximumAttempts: 6,
    },
  });
  try {
    await sendWebhook({ eventId: input.eventId });
  } catch {
    // Every attempt and the final outcome are recorded by the activity.
  }
}
