export { deliveryWorkflow } from './workflow';
