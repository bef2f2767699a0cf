import * as handoverCodes from '../db/handover-codes';
import type { ActivityDeps } from './deps';

/** What a hand-over code try finds: the issued code, another one, or none issued yet. */
export type CodeMatch = 'match' | 'mismatch' | 'not_issued';

export function createHandoverCodeCheckActivities({ orm }: ActivityDeps) {
  return {
    /**
     * Compares a try's hash with the issued code's. The workflow counts wrong tries and locks the
     * drop, so this only reads.
     */
    async matchHandoverCode({ deliveryId, position, codeHash }: { deliveryId: string; position: number; codeHash: string }): Promise<CodeMatch> {
      const issued = await handoverCodes.issuedHash(orm.em.fork(), deliveryId, position);
      if (issued === null) return 'not_issued';
      return issued === codeHash ? 'match' : 'mismatch';
    },
  };
}
