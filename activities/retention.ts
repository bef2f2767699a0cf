import * as handoverPhotos from '../db/handover-photos';
import * as idempotency from '../db/idempotency';
import * as retention from '../db/retention';
import type { ActivityDeps } from './deps';
import { workerMetrics } from './metrics';

/** What one batch of the retention round found ended before the cutoff, and how many it redacted. */
export interface RedactionBatch {
  found: number;
  redacted: number;
}

/**
 * Redacts the recipients of those of `deliveryIds` that are finished, and returns their ids: the
 * photo files first, then every row in one transaction (db/retention.ts `redact`). A photo whose
 * removal fails stops the batch with its rows untouched, so the next try finds it again; a photo
 * already removed is no error. The retention round and the operator's `recipient:forget` both
 * call it.
 */
export async function redactDeliveries({ orm, photos }: Pick<ActivityDeps, 'orm' | 'photos'>, deliveryIds: string[]): Promise<string[]> {
  const em = orm.em.fork();
  const keys = await retention.photoKeysOf(em, deliveryIds);
  for (const key of keys) await photos.delete(key);
  return retention.redact(em, deliveryIds, keys);
}

/**
 * How long a hand-over photo may wait for its hand-over's answer: one still an upload after this
 * was neither taken nor refused (the API stopped before it heard) and is no proof of anything.
 */
const UNDECIDED_UPLOAD_HOURS = 24;

/** Removes the uploads nobody decided on (db/handover-photos.ts `discardUpload`); how many. */
async function forgetUndecidedUploads({ orm, photos }: Pick<ActivityDeps, 'orm' | 'photos'>): Promise<number> {
  const em = orm.em.fork();
  let removed = 0;
  for (const key of await handoverPhotos.undecidedUploads(em, UNDECIDED_UPLOAD_HOURS)) {
    if (await handoverPhotos.discardUpload(em, photos, key)) removed += 1;
  }
  return removed;
}

/**
 * The retention round's steps (workflows/retention.ts, started daily by a Temporal Schedule):
 * recipients' names, phones, notes and photos of deliveries that ended before a cutoff are
 * redacted, and the copies that outlive their use by hours, not days, are removed.
 */
export function createRetentionActivities({ orm, photos, logger }: Pick<ActivityDeps, 'orm' | 'photos' | 'logger'>) {
  return {
    /** Redacts up to `limit` finished deliveries that ended before `cutoff` (ISO 8601), oldest first. */
    async redactFinishedDeliveries({ cutoff, limit }: { cutoff: string; limit: number }): Promise<RedactionBatch> {
      const found = await retention.finishedBefore(orm.em.fork(), new Date(cutoff), limit);
      const redacted = await redactDeliveries({ orm, photos }, found);
      if (redacted.length > 0) {
        logger.info('Recipients redacted: their deliveries ended before the retention cutoff', { deliveries: redacted.length, cutoff });
        workerMetrics.redacted(redacted.length);
      }
      return { found: found.length, redacted: redacted.length };
    },

    /**
     * Removes what outlives its use by hours: the hand-over codes of jobs no longer active (a code
     * written as its job ended; the ending transition removes the rest) and the answers kept for
     * repeated bookings past their 24 hours, which carry the recipients as booked, and hand-over
     * photos whose hand-over was never decided (UNDECIDED_UPLOAD_HOURS).
     */
    async forgetShortLivedCopies(): Promise<{ codeTexts: number; codeHashes: number; photoUploads: number }> {
      const em = orm.em.fork();
      const { texts, codes } = await retention.forgetEndedJobCodes(em);
      await idempotency.sweepExpired(em);
      const photoUploads = await forgetUndecidedUploads({ orm, photos });
      return { codeTexts: texts, codeHashes: codes, photoUploads };
    },
  };
}
