import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import * as bookings from '../db/bookings';
import { deliveryStartOptions, deliveryWorkflowInput } from '../workflows/delivery/start';
import { DELIVERY_WORKFLOW_TYPE, type DeliveryWorkflow } from '../workflows/messages';
import type { ActivityDeps } from './deps';
import { workerMetrics } from './metrics';

/** Orphans handled in one round; more wait for the next round, oldest first. */
const SWEEP_BATCH = 100;

/**
 * What the sweeper did for one orphaned booking: started its workflow; found one already open and
 * claimed the row on its behalf; found the row withdrawn meanwhile; or could not reach Temporal.
 */
export type OrphanOutcome = 'started' | 'already_running' | 'withdrawn' | 'start_failed';

export interface SweepReport {
  found: number;
  outcomes: Partial<Record<OrphanOutcome, number>>;
}

export function createBookingSweepActivities({ orm, temporal, logger, settings }: ActivityDeps) {
  /** `liveQueue` is the sweeper's own; a test-mode orphan goes to the test queue beside it. */
  async function startWorkflowFor(orphan: bookings.UnclaimedBooking, liveQueue: string): Promise<OrphanOutcome> {
    const input = deliveryWorkflowInput(
      {
        ...orphan,
        pickup: { lat: orphan.pickupLat, lng: orphan.pickupLng },
        dropoff: { lat: orphan.dropoffLat, lng: orphan.dropoffLng },
      },
      settings,
    );
    try {
      // By name: importing the workflow would make activities/ and workflows/ import each other.
      await temporal.workflow.start<DeliveryWorkflow>(DELIVERY_WORKFLOW_TYPE, {
        ...deliveryStartOptions(input, liveQueue),
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        // A run that closed without claiming the row did nothing (the claim is its first step),
        // so a new run may take its place.
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      });
      return 'started';
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) {
        logger.error('Orphaned booking: its workflow could not be started', {
          deliveryId: orphan.id,
          error: error instanceof Error ? error.message : String(error),
        });
        return 'start_failed';
      }
      // A run is open but has not claimed the row: it is about to (its worker was slow), or it is
      // past its first step already. Either way the booking has its workflow: the claim says so,
      // and the API can no longer withdraw it. The run's own claim finds it claimed and goes on.
      return (await bookings.claimForWorkflow(orm.em, orphan.id)) ? 'already_running' : 'withdrawn';
    }
  }

  return {
    /**
     * One round of the booking sweeper: every booking committed `bookingOrphanAfterSeconds` ago
     * (by Postgres' clock) that no workflow has claimed gets its delivery workflow, started on
     * its mode's queue beside the live `taskQueue` (the sweeper's own), with the input the API
     * would have given it. Each one is logged and counted.
     */
    async sweepOrphanedBookings({ taskQueue }: { taskQueue: string }): Promise<SweepReport> {
      const orphans = await bookings.findUnclaimed(orm.em.fork(), { olderThanSeconds: settings.bookingOrphanAfterSeconds, limit: SWEEP_BATCH });
      const report: SweepReport = { found: orphans.length, outcomes: {} };
      for (const orphan of orphans) {
        const outcome = await startWorkflowFor(orphan, taskQueue);
        logger.warn('Orphaned booking found', {
          deliveryId: orphan.id,
          partnerId: orphan.partnerId,
          mode: orphan.mode,
          ageSeconds: Math.round(orphan.ageSeconds),
          outcome,
        });
        workerMetrics.orphanedBooking(outcome);
        report.outcomes[outcome] = (report.outcomes[outcome] ?? 0) + 1;
      }
      return report;
    },
  };
}
