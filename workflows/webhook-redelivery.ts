import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliveryTimings } from '../domain/timings';
import { webhookActivityOptions } from './webhook-policy';

/** A partner asked for a callback again: the same stored bytes, signed with the current secret. */
export async function webhookRedeliveryWorkflow(input: { eventId: string; timings: DeliveryTimings }): Promise<void> {
  const { sendWebhook } = proxyActivities<Activities>(webhookActivityOptions(input.timings));
  try {
    await sendWebhook({ eventId: input.eventId });
  } catch {
    // Every attempt and the final outcome are recorded by the activity.
  }
}
