import * as reassignment from '../db/reassignment';
import * as transitions from '../db/transitions';
import type { TransitionRecord } from '../db/transitions';
import { etaAtChange } from './change-eta';
import type { ActivityDeps } from './deps';
import { workerMetrics } from './metrics';

/** Runs one stage of recording a status change, and reports how long it took. */
async function timed<T>(stage: 'eta' | 'write', work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    workerMetrics.transitionStage(stage, performance.now() - started);
  }
}

export function createTransitionActivities(deps: ActivityDeps) {
  const { orm, settings } = deps;
  return {
    /**
     * A status change, recorded in one transaction with its webhook body (see db/transitions.ts)
     * and the ETA worked out for it, which the body carries.
     */
    async recordTransition(record: TransitionRecord): Promise<{ eventId: string | null }> {
      const eta = await timed('eta', () => etaAtChange(deps, record));
      const recorded = await timed('write', () => transitions.record(orm.em, record, settings.siteUrl, eta));
      workerMetrics.transition(record.status);
      return recorded;
    },

    /**
     * A rider's accept in one transaction: the rider is held to the job and `accepted` is written
     * with its webhook body, or neither happens (the rider already holds another job). One step,
     * so the path from the rider's tap to the partner's callback has one round trip fewer.
     */
    async acceptJob(accept: Omit<TransitionRecord, 'status'> & { riderId: string }): Promise<{ claimed: boolean; eventId: string | null }> {
      const eta = await timed('eta', () => etaAtChange(deps, { ...accept, status: 'accepted' }));
      const accepted = await timed('write', () => transitions.recordAccept(orm.em, accept, settings.siteUrl, eta));
      if (accepted.claimed) workerMetrics.transition('accepted');
      return accepted;
    },

    /**
     * The job handed to another rider, or taken from its rider to be offered again (`toRiderId`
     * null); its status stays, so no webhook. `claimed` is false when that rider is not free.
     */
    async reassignJob(input: { deliveryId: string; fromRiderId: string | null; toRiderId: string | null }) {
      return reassignment.reassignJob(orm.em, input);
    },

    /** An additional stop handed over (no webhook: the contract has no event for it). */
    async recordStopHandover(record: { deliveryId: string; index: number; at: string; photoKey: string | null; lat?: number | null; lng?: number | null }) {
      await transitions.recordStopHandover(orm.em.fork(), record);
    },
  };
}
