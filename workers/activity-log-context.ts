import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { logContext } from '../config/logger';

const DELIVERY_WORKFLOW = /^(?:delivery|robo-rider)-([0-9a-f-]{36})$/;

/**
 * Every log line an activity writes carries its workflow, its activity type and the delivery it
 * serves, so ops can follow one delivery across processes with a single log query.
 */
export const activityLogContext: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    execute(input, next) {
      const workflowId = ctx.info.workflowExecution?.workflowId ?? '';
      const first = input.args[0] as { deliveryId?: unknown } | undefined;
      const deliveryId = typeof first?.deliveryId === 'string' ? first.deliveryId : DELIVERY_WORKFLOW.exec(workflowId)?.[1];
      const context: Record<string, string> = { workflowId, activityType: ctx.info.activityType };
      if (deliveryId) context.deliveryId = deliveryId;
      return logContext.run({ ...logContext.getStore(), ...context }, () => next(input));
    },
  },
});
