import type { DeliveryActivities } from './activities';

/** Why a code is refused; the API answers each with 400 and the `otp` detail. */
export interface CodeRefusal {
  message: string;
  otp: string;
}

const LOCKED: CodeRefusal = { message: 'Too many wrong codes; try again later', otp: 'locked for a while after wrong tries' };
const BUSY: CodeRefusal = { message: 'Another code is being checked; try again in a moment', otp: 'another try is being checked' };

/**
 * The recipients' hand-over codes, checked one try at a time, so no more than `maxWrong` wrong
 * codes are ever compared before a drop locks for `lockSeconds`. A try that arrives while another
 * is being compared is refused, not queued: a rider app sends one at a time, and queued tries
 * would pile up as open updates (the server caps those per workflow). Only hashes reach the
 * workflow; the activity compares them with Postgres.
 */
export class HandoverCodeLockout {
  private readonly drops = new Map<number, { wrong: number; lockedUntil: number }>();
  private checking = false;

  constructor(
    private readonly deliveryId: string,
    private readonly limits: { maxWrong: number; lockSeconds: number },
    private readonly acts: DeliveryActivities,
  ) {}

  /** Refuses a try before it is compared (and before it enters history): the drop is locked, or busy. */
  refusalNow(position: number): CodeRefusal | null {
    if ((this.drops.get(position)?.lockedUntil ?? 0) > Date.now()) return LOCKED;
    return this.checking ? BUSY : null;
  }

  /** Compares one try with the issued code; null when it matches. */
  async check(position: number, codeHash: string): Promise<CodeRefusal | null> {
    // Tries validated in the same activation both reach here: only the first is compared.
    const refused = this.refusalNow(position);
    if (refused) return refused;
    this.checking = true;
    try {
      const answer = await this.acts.db.matchHandoverCode({ deliveryId: this.deliveryId, position, codeHash });
      if (answer === 'not_issued') return { message: 'No code was issued for this hand-over yet; try again in a moment', otp: 'not issued yet' };
      if (answer === 'match') return null;
      this.countWrong(position);
      return { message: 'The code is wrong', otp: 'does not match' };
    } finally {
      this.checking = false;
    }
  }

  private countWrong(position: number): void {
    const drop = this.drops.get(position) ?? { wrong: 0, lockedUntil: 0 };
    drop.wrong += 1;
    if (drop.wrong >= this.limits.maxWrong) {
      drop.wrong = 0;
      drop.lockedUntil = Date.now() + this.limits.lockSeconds * 1000;
    }
    this.drops.set(position, drop);
  }
}
