import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { StreetReport } from '../activities/street-watch';

// A round is cheap and the Schedule runs the next one soon: a failed round is tried twice more,
// then left to the next, which finds the same riders and jobs.
const { watchTheStreet } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
});

/**
 * One round of the street watch, started by a Temporal Schedule (workers/schedules.ts): silent
 * riders are set offline, and jobs whose rider went silent are flagged for an operator.
 */
export async function streetWatchWorkflow(): Promise<StreetReport> {
  return watchTheStreet();
}
