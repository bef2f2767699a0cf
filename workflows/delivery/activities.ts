import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { DeliveryTimings } from '../../domain/timings';
import { webhookActivityOptions } from '../webhook-policy';

/** The activities a delivery runs, grouped by the retry policy each kind of side effect needs. */
export function deliveryActivities(t: DeliveryTimings) {
  return {
    // Read-model writes retry until Postgres answers: a transition a rider was told happened is
    // never lost. Local (run by the worker holding this workflow), so a rider's step costs no
    // task-queue round trip on its way to the partner's webhook.
    db: proxyLocalActivities<Activities>({
      startToCloseTimeout: '30 seconds',
      localRetryThreshold: '10 seconds',
      retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
    }),
    // The claim of the booking row is tried again until Postgres answers; only a row found
    // missing (the API withdrew it) ends the workflow.
    booking: proxyLocalActivities<Activities>({
      startToCloseTimeout: '10 seconds',
      retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
    }),
    // The network's outages are retried with backoff (5 tries in all); a decline is a result, not an error.
    gateway: proxyActivities<Activities>({
      startToCloseTimeout: '30 seconds',
      retry: { initialInterval: `${t.debitRetryInitialSeconds} seconds`, backoffCoefficient: 2, maximumAttempts: 5 },
    }),
    webhooks: proxyActivities<Activities>(webhookActivityOptions(t)),
    // A report that contradicts the record is checked with the gateway until it answers: the
    // record must end as the gateway says, however long its outage.
    reconciliation: proxyActivities<Activities>({
      startToCloseTimeout: '1 minute',
      retry: { initialInterval: `${t.debitRetryInitialSeconds} seconds`, backoffCoefficient: 2, maximumInterval: '5 minutes' },
    }),
    // Hand-over codes are texted until the SMS provider takes them: its outage holds up neither
    // the debit nor dispatch.
    texting: proxyActivities<Activities>({
      startToCloseTimeout: '2 minutes',
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
    }),
  };
}

export type DeliveryActivities = ReturnType<typeof deliveryActivities>;
