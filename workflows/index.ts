export { bookingSweepWorkflow } from './booking-sweep';
export { deliveryWorkflow } from './delivery';
export { roboRiderWorkflow } from './robo-rider';
export { webhookRedeliveryWorkflow } from './webhook-redelivery';
export { debitReconciliationWorkflow } from './debit-reconciliation';
export { streetWatchWorkflow } from './street-watch';
export { retentionWorkflow } from './retention';
