import type { Client } from '@temporalio/client';
import type { Settings } from '../../config/settings';

/**
 * Runs the API's calls to Temporal under one deadline. Without it a call to a server that has
 * stopped answering but still holds its connections (frozen, or cut off by a network partition)
 * waits for ever and so does the partner; with it the call fails with DEADLINE_EXCEEDED and the
 * request is answered 503 `unavailable` (every gRPC request made inside `calls` shares it).
 */
export function withinTemporalDeadline<T>(
  { temporal, settings }: { temporal: Client; settings: Pick<Settings, 'temporalCallTimeoutSeconds'> },
  calls: () => Promise<T>,
): Promise<T> {
  return temporal.connection.withDeadline(Date.now() + settings.temporalCallTimeoutSeconds * 1000, calls);
}
