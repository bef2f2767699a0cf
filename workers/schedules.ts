import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { Settings } from '../config/settings';
import { bookingSweepWorkflow, debitReconciliationWorkflow, retentionWorkflow, streetWatchWorkflow } from '../workflows';

/** Deliveries the retention round redacts in one activity: a transaction of a few hundred rows a table. */
const RETENTION_BATCH = 200;

/**
 * The project's Temporal Schedules: short workflows the server starts on the worker's task queue at
 * set times. Each id names its task queue, since the workflows it starts run there.
 */
export function projectSchedules(
  settings: Pick<
    Settings,
    | 'temporalTaskQueue'
    | 'bookingSweepIntervalSeconds'
    | 'reconcileIntervalSeconds'
    | 'reconcilePendingAfterSeconds'
    | 'streetWatchIntervalSeconds'
    | 'retentionDays'
  >,
): ScheduleOptions[] {
  const taskQueue = settings.temporalTaskQueue;
  return [
    {
      scheduleId: `booking-sweep-${taskQueue}`,
      spec: { intervals: [{ every: settings.bookingSweepIntervalSeconds * 1000 }] },
      action: { type: 'startWorkflow', workflowType: bookingSweepWorkflow, taskQueue, args: [], workflowId: `booking-sweep-${taskQueue}` },
      // A round missed or still running is no loss: the next one finds the same bookings.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    },
    {
      scheduleId: `debit-reconciliation-${taskQueue}`,
      spec: { intervals: [{ every: settings.reconcileIntervalSeconds * 1000 }] },
      action: {
        type: 'startWorkflow',
        workflowType: debitReconciliationWorkflow,
        taskQueue,
        args: [{ pendingAfterSeconds: settings.reconcilePendingAfterSeconds, batch: 100 }],
        workflowId: `debit-reconciliation-${taskQueue}`,
      },
      // Likewise: the debits a skipped round would have checked are still there for the next.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    },
    {
      scheduleId: `street-watch-${taskQueue}`,
      spec: { intervals: [{ every: settings.streetWatchIntervalSeconds * 1000 }] },
      action: { type: 'startWorkflow', workflowType: streetWatchWorkflow, taskQueue, args: [], workflowId: `street-watch-${taskQueue}` },
      // Silent riders and jobs are still silent at the next round.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    },
    {
      scheduleId: `retention-${taskQueue}`,
      // Daily, at 02:30 UTC (Ghana's time), when the service is at its quietest.
      spec: { calendars: [{ hour: 2, minute: 30, comment: 'daily at 02:30 UTC' }] },
      action: {
        type: 'startWorkflow',
        workflowType: retentionWorkflow,
        taskQueue,
        args: [{ retentionDays: settings.retentionDays, batch: RETENTION_BATCH }],
        workflowId: `retention-${taskQueue}`,
      },
      // A round missed while Temporal was down runs when it is back, not a day late; one still
      // running (a backlog) is not doubled.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
    },
  ];
}

/**
 * Creates each schedule, or brings one that exists up to date with these settings: every worker
 * runs this at start, at the same time as others. A schedule an operator paused stays paused.
 */
export async function ensureSchedules(client: Client, schedules: ScheduleOptions[]): Promise<void> {
  for (const schedule of schedules) {
    try {
      await client.schedule.create(schedule);
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      await client.schedule.getHandle(schedule.scheduleId).update((previous) => ({
        ...previous,
        spec: schedule.spec,
        action: schedule.action,
        policies: { ...previous.policies, ...schedule.policies },
      }));
    }
  }
}

/** Deletes the schedules (a test stack's, when it closes); one already gone is fine. */
export async function removeSchedules(client: Client, schedules: ScheduleOptions[]): Promise<void> {
  for (const schedule of schedules) {
    await client.schedule
      .getHandle(schedule.scheduleId)
      .delete()
      .catch((error: unknown) => {
        if (!(error instanceof ScheduleNotFoundError)) throw error;
      });
  }
}
