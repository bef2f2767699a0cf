import { setHandler } from '@temporalio/workflow';
import {
  acceptUpdate,
  attentionSignal,
  cancelUpdate,
  changeBookingUpdate,
  changeContactsUpdate,
  completeStopUpdate,
  deliverUpdate,
  departUpdate,
  expireUpdate,
  paymentSettledSignal,
  pickupUpdate,
  reassignUpdate,
  stateQuery,
} from '../messages';
import type { Delivery } from './state';

/**
 * Every message a delivery answers. Validators refuse what the step rules (domain/steps.ts) do not
 * allow, before the message enters history; handlers call into the delivery's state.
 */
export function handleMessages(delivery: Delivery): void {
  setHandler(stateQuery, () => delivery.snapshot());
  setHandler(paymentSettledSignal, (outcome) => delivery.confirmPayment(outcome));

  setHandler(acceptUpdate, (action) => delivery.accept(action), { validator: (_action) => delivery.checkAccept() });
  setHandler(pickupUpdate, (action) => delivery.moveTo('picked_up', action), {
    validator: (action) => delivery.checkStep('pickup', action),
  });
  setHandler(departUpdate, (action) => delivery.moveTo('in_transit', action), {
    validator: (action) => delivery.checkStep('depart', action),
  });
  setHandler(completeStopUpdate, (action) => delivery.completeStop(action), { validator: (action) => delivery.checkStop(action) });
  setHandler(deliverUpdate, (action) => delivery.deliver(action), { validator: (action) => delivery.checkDeliver(action) });
  setHandler(cancelUpdate, () => delivery.cancel(), { validator: () => delivery.checkCancel() });
  setHandler(changeBookingUpdate, (change) => delivery.change(change), { validator: (change) => delivery.checkChange(change) });
  // Histories recorded before places could change name the same update `changeContacts`.
  setHandler(changeContactsUpdate, (change) => delivery.change(change), { validator: (change) => delivery.checkChange(change) });
  setHandler(expireUpdate, () => delivery.moveTo('expired'), { validator: () => delivery.checkExpire() });
  setHandler(reassignUpdate, (to) => delivery.reassign(to), { validator: (to) => delivery.checkReassign(to) });
  setHandler(attentionSignal, ({ needed }) => delivery.markAttention(needed));
}
