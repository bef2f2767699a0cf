import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyMode } from '../domain/api-key';
import { addHits, takeBackHit } from './rate-limits';

/**
 * The hourly budget of hand-over code texts per partner and mode (SMS_PER_PARTNER_PER_HOUR), kept
 * in the rate-limit counters (`rate_limit_counters`): an hour-long window from its first text,
 * counted atomically under the row lock, so every worker process spends one budget.
 */

const HOUR_MS = 3_600_000;

export interface TextSender {
  partnerId: string;
  mode: KeyMode;
}

function keyOf({ partnerId, mode }: TextSender): string {
  return `sms-texts:${mode}:${partnerId}`;
}

/** Counts one text against the partner's hour; false when the hour's budget was already spent. */
export async function spendText(em: EntityManager, sender: TextSender, perHour: number): Promise<boolean> {
  const [window] = await addHits(em, [keyOf(sender)], [1], HOUR_MS);
  return window !== undefined && window.hits <= perHour;
}

/** Gives back a text counted but never sent (the provider refused it; the activity will try again). */
export async function giveBackText(em: EntityManager, sender: TextSender): Promise<void> {
  await takeBackHit(em, keyOf(sender));
}
