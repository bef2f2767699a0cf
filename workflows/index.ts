export { deliveryWorkflow } from './delivery';
export { roboRiderWorkflow } from './robo-rider';
export { webhookRedeliveryWorkflow } from './webhook-redelivery';
