import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { DELIVERY_WORKFLOW_TYPE, DeliveryState, DeliveryWorkflow, DeliveryWorkflowInput } from '../messages';
import { deliveryActivities } from './activities';
import { dispatch, offerAgain, waitForScheduledTime } from './dispatch';
import { handleMessages } from './handlers';
import { collectChangeDebit, collectPayment } from './payment';
import { Delivery } from './state';

/**
 * One delivery, from booking to a terminal status: the single writer of its state. It owns the
 * state machine (domain/lifecycle.ts), the dispatch deadline, the debit and the webhooks.
 */
export async function deliveryWorkflow(input: DeliveryWorkflowInput): Promise<DeliveryState> {
  const acts = deliveryActivities(input.timings);
  const delivery = new Delivery(input, acts, { offerAgain, collectChangeDebit });
  handleMessages(delivery);

  try {
    await acts.booking.beginDelivery({ deliveryId: input.deliveryId });
  } catch {
    // The API withdrew the booking when it could not tell that this workflow had started, and
    // answered 503: nobody was told this delivery exists, so nothing is dispatched, debited or sent.
    return delivery.snapshot();
  }

  const payment = collectPayment(delivery);
  const codes =
    input.verificationMethod === 'otp' ? acts.texting.textHandoverCodes({ deliveryId: input.deliveryId }).catch(() => undefined) : undefined;
  await waitForScheduledTime(delivery);
  if (delivery.status === 'pending') await dispatch(delivery);

  await condition(() => delivery.isFinished);
  await payment;
  await codes;
  // Every write, webhook and message handler finishes before the workflow completes.
  await delivery.recorder.drained();
  await condition(allHandlersFinished);
  return delivery.snapshot();
}

// The booking sweeper starts this workflow by name (messages.ts): a rename or a new signature must not compile.
type _StartedByName<T extends Record<typeof DELIVERY_WORKFLOW_TYPE, DeliveryWorkflow>> = T;
type _DeliveryWorkflow = _StartedByName<{ deliveryWorkflow: typeof deliveryWorkflow }>;
