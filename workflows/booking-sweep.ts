import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { SweepReport } from '../activities/booking-sweep';

// A round is cheap and the Schedule runs the next one soon: a failed round is tried twice more,
// then left to the next, which finds the same bookings.
const { sweepOrphanedBookings } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
});

/**
 * One round of the booking sweeper, started by a Temporal Schedule (workers/schedules.ts): each
 * booking committed but never claimed by a delivery workflow gets its workflow, on this task queue.
 */
export async function bookingSweepWorkflow(): Promise<SweepReport> {
  return sweepOrphanedBookings({ taskQueue: workflowInfo().taskQueue });
}
