export { API_PREFIX, createPartnerClient } from './client';
export type { BookingCallOptions, CallOptions, IdempotentCallOptions, PartnerClient, PartnerClientOptions, RawClient } from './client';
export { PartnerApiError } from './errors';
export { withRetries } from './retries';
export type { RetryOptions } from './retries';
export { verifyWebhook } from './webhooks';
export type * from './types';
export type { components, operations, paths, webhooks } from './schema';
