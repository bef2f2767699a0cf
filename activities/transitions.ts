import * as deliveries from '../db/deliveries';
import * as handoverPhotos from '../db/handover-photos';
import { FINAL_DROP } from '../domain/lifecycle';
import * as reassignment from '../db/reassignment';
import * as transitions from '../db/transitions';
import type { TransitionRecord } from '../db/transitions';
import { etaAtChange } from './change-eta';
import type { ActivityDeps } from './deps';
import { workerMetrics } from './metrics';

/** Runs one stage of recording a status change, and reports how long it took. */
async function timed<T>(stage: 'read' | 'eta' | 'write', work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    workerMetrics.transitionStage(stage, performance.now() - started);
  }
}

/** The delivery as a status change finds it, with `riderId`'s row for its rider when given. */
async function readBefore({ orm }: ActivityDeps, deliveryId: string, riderId: string | null) {
  const parts = await timed('read', () => deliveries.readForChange(orm.em, deliveryId, riderId));
  if (!parts) throw new Error(`Delivery ${deliveryId} was not found`);
  return parts;
}

export function createTransitionActivities(deps: ActivityDeps) {
  const { orm, settings } = deps;
  return {
    /**
     * A status change: the delivery read as it finds it, the ETA worked out for it, and the
     * change written in one statement with its webhook body, which carries that ETA (see
     * db/transitions.ts).
     */
    async recordTransition(record: TransitionRecord): Promise<{ eventId: string | null }> {
      // The accepted hand-over's upload becomes the drop's photo before the change is read and written.
      if (record.photoKey) await handoverPhotos.keepAccepted(orm.em.fork(), record.deliveryId, FINAL_DROP, record.photoKey);
      const before = await readBefore(deps, record.deliveryId, record.riderId);
      const eta = await timed('eta', () => etaAtChange(deps, record, before));
      const recorded = await timed('write', () => transitions.record(orm.em, record, before, settings.siteUrl, eta));
      workerMetrics.transition(record.status);
      return recorded;
    },

    /**
     * A rider's accept in one transaction: the rider is held to the job and `accepted` is written
     * with its webhook body, or neither happens (the rider already holds another job). One step,
     * so the path from the rider's tap to the partner's callback has one round trip fewer.
     */
    async acceptJob(accept: Omit<TransitionRecord, 'status'> & { riderId: string }): Promise<{ claimed: boolean; eventId: string | null }> {
      const before = await readBefore(deps, accept.deliveryId, accept.riderId);
      const eta = await timed('eta', () => etaAtChange(deps, { ...accept, status: 'accepted' }, before));
      const accepted = await timed('write', () => transitions.recordAccept(orm.em, accept, before, settings.siteUrl, eta));
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
      if (record.photoKey) await handoverPhotos.keepAccepted(orm.em.fork(), record.deliveryId, record.index, record.photoKey);
      await transitions.recordStopHandover(orm.em.fork(), record);
    },
  };
}
