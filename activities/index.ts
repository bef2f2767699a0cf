import { createBookingActivities } from './booking';
import type { ActivityDeps } from './deps';
import { createDispatchActivities } from './dispatch';
import { createPaymentActivities } from './payments';
import { createRoboRiderActivities } from './robo-rider';
import { createTransitionActivities } from './transitions';
import { createWebhookActivities } from './webhooks';

export type { ActivityDeps } from './deps';

/** Every activity a workflow may run, built from their dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createBookingActivities(deps),
    ...createTransitionActivities(deps),
    ...createDispatchActivities(deps),
    ...createPaymentActivities(deps),
    ...createWebhookActivities(deps),
    ...createRoboRiderActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
