/**
 * How long recipients' personal data is kept, and what takes its place: a finished delivery keeps
 * its recipients' names and phones for RETENTION_DAYS after it ended, then every copy we keep is
 * redacted (activities/retention.ts). Shared by the retention workflow, the worker and the tests.
 */

/** What a recipient's name becomes once the retention period has passed. */
export const REDACTED_NAME = '[redacted]';

/**
 * What a recipient's phone becomes. It keeps the form the contract gives the field (`+233` and nine
 * digits), so a partner's parser still takes it, but no Ghana number begins with 0 after `+233`:
 * it is never a number in use, and a booking with it is refused.
 */
export const REDACTED_PHONE = '+233000000000';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deliveries that ended before this moment are redacted: `now` less RETENTION_DAYS. */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}
