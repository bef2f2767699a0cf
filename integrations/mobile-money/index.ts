export * from './gateway';
export { SandboxNetwork, SANDBOX_NUMBERS, SANDBOX_HOLDER_NAME } from './sandbox';
export { PaystackGateway, verifyPaystackSignature, parsePaystackEvent } from './paystack';
export { networkOf, NETWORK_PREFIXES } from './networks';
