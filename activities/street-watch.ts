import { WorkflowNotFoundError } from '@temporalio/client';
import * as streetWatch from '../db/street-watch';
import { deliveryWorkflowId } from '../domain/reference';
import { attentionSignal } from '../workflows/messages';
import type { ActivityDeps } from './deps';
import { workerMetrics } from './metrics';

export interface StreetReport {
  ridersSetOffline: number;
  flagged: number;
  cleared: number;
  needingAttention: number;
}

/**
 * What the street watch does each round (a Temporal Schedule, workers/schedules.ts): riders
 * silent past RIDER_OFFLINE_MINUTES, or signed out, are set offline; jobs whose rider has been
 * silent past RIDER_SILENT_MINUTES are flagged, logged and marked `NeedsAttention` on their
 * workflow, and the flag goes once the rider is heard from again or the job moves on.
 */
export function createStreetWatchActivities({ orm, temporal, logger, settings }: Pick<ActivityDeps, 'orm' | 'temporal' | 'logger' | 'settings'>) {
  /** The workflow keeps its search attribute; one that has finished needs no telling. */
  async function tell(deliveryId: string, needed: boolean): Promise<void> {
    await temporal.workflow
      .getHandle(deliveryWorkflowId(deliveryId))
      .signal(attentionSignal, { needed })
      .catch((error: unknown) => {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      });
  }

  return {
    async watchTheStreet(): Promise<StreetReport> {
      const em = orm.em.fork();
      const ridersSetOffline = await streetWatch.setSilentRidersOffline(em, settings.riderOfflineMinutes * 60);
      const { flagged, cleared, needingAttention } = await streetWatch.flagSilentJobs(em, settings.riderSilentMinutes * 60);
      for (const job of flagged) {
        logger.warn('A job needs attention: its rider has sent neither a position nor a step', {
          deliveryId: job.delivery_id,
          riderId: job.rider_id,
          status: job.status,
          silentSince: job.silent_since.toISOString(),
        });
      }
      await Promise.all([...flagged.map((job) => tell(job.delivery_id, true)), ...cleared.map((id) => tell(id, false))]);
      workerMetrics.streetWatch({ ridersSetOffline, needingAttention });
      return { ridersSetOffline, flagged: flagged.length, cleared: cleared.length, needingAttention };
    },
  };
}
