import { createBookingActivities } from './booking';
import { createBookingSweepActivities } from './booking-sweep';
import type { ActivityDeps } from './deps';
import { createDispatchActivities } from './dispatch';
import { createHandoverCodeCheckActivities } from './handover-code-check';
import { createPaymentActivities } from './payments';
import { createReconciliationActivities } from './reconciliation';
import { createRetentionActivities } from './retention';
import { createRoboRiderActivities } from './robo-rider';
import { createStreetWatchActivities } from './street-watch';
import { createTransitionActivities } from './transitions';
import { createWebhookActivities } from './webhooks';

export type { ActivityDeps } from './deps';

/** Every activity a workflow may run, built from their dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createBookingActivities(deps),
    ...createBookingSweepActivities(deps),
    ...createTransitionActivities(deps),
    ...createDispatchActivities(deps),
    ...createHandoverCodeCheckActivities(deps),
    ...createPaymentActivities(deps),
    ...createReconciliationActivities(deps),
    ...createWebhookActivities(deps),
    ...createRoboRiderActivities(deps),
    ...createStreetWatchActivities(deps),
    ...createRetentionActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
