import type { EntityManager } from '@mikro-orm/postgresql';
import { poolQuery } from './pool-query';

/**
 * Tries at sending callbacks, each recorded with its outcome on the callback. Every callback runs
 * the sender's statements, and they are on the path from a status change to the partner's
 * server, so they are named prepared statements on a client of the ORM's pool.
 */

/** A callback as the sender takes it up. */
export interface EventToSend {
  id: string;
  event: string;
  delivery_id: string | null;
  partner_id: string;
  /** The exact bytes fixed when the status changed; null once redacted (RETENTION_DAYS). */
  body: string | null;
  /** This try's number, taken before it is sent; null when there is no URL to send to. */
  attempt: number | null;
  url: string | null;
  secret: string | null;
}

/** One try as the log lists it. */
export interface AttemptRow {
  event_id: string;
  attempt: number;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  next_retry_at: Date | null;
  created_at: Date;
}

/**
 * The event and the partner's current URL and secret in one round trip. The try's number is
 * taken in the same statement, before the try is sent, under the event's row lock: tries of one
 * event at the same time (a retry and a redelivery) and a try whose worker died before its
 * answer was recorded never share a number. A callback with nowhere to go, or whose body was
 * redacted, takes no number: it is not tried.
 */
const CLAIM_ATTEMPT = {
  name: 'webhook-claim-attempt',
  text: `
    with target as (
      select e.id, w.url, w.secret
      from webhook_events e left join webhook_endpoints w on w.partner_id = e.partner_id and w.mode = e.mode
      where e.id = $1
    ), claimed as (
      update webhook_events e set attempts = e.attempts + 1
      from target t where e.id = t.id and t.url is not null and t.secret is not null and e.body is not null
      returning e.attempts
    )
    select e.id, e.event, e.delivery_id, e.partner_id, e.body, t.url, t.secret, (select attempts from claimed) as attempt
    from webhook_events e join target t on t.id = e.id`,
};

const MARK_SKIPPED = {
  name: 'webhook-mark-skipped',
  text: `update webhook_events set state = 'skipped' where id = $1 and state <> 'delivered'`,
};

/**
 * The try and its outcome on the event, in one statement (so at once, without a transaction's
 * extra round trips). `$8` is whether it was delivered; a failed try with no retry left ($7 null)
 * fails the event.
 */
const RECORD_ATTEMPT = {
  name: 'webhook-record-attempt',
  text: `
    with attempt as (
      insert into webhook_attempts (event_id, attempt, url, status_code, latency_ms, error, next_retry_at)
      values ($1, $2, $3, $4, $5, $6, $7))
    update webhook_events set last_attempt_at = now(),
      state = case when $8::boolean then 'delivered' when $7::timestamptz is null then 'failed' else state end
    where id = $1`,
};

/** Takes up a callback for a try (see CLAIM_ATTEMPT); undefined when there is no such callback. */
export async function claim(em: EntityManager, eventId: string): Promise<EventToSend | undefined> {
  return (await poolQuery(em).query<EventToSend>({ ...CLAIM_ATTEMPT, values: [eventId] })).rows[0];
}

/** The callback had nowhere to go; one already delivered stays so. */
export async function markSkipped(em: EntityManager, eventId: string): Promise<void> {
  await poolQuery(em).query({ ...MARK_SKIPPED, values: [eventId] });
}

/** Records a try and its outcome (see RECORD_ATTEMPT). */
export async function record(
  em: EntityManager,
  attempt: {
    eventId: string;
    attempt: number;
    url: string;
    statusCode: number | null;
    latencyMs: number | null;
    error: string | null;
    /** When the retry policy tries again; null after the last try. */
    nextRetryAt: Date | null;
    delivered: boolean;
  },
): Promise<void> {
  const a = attempt;
  await poolQuery(em).query({
    ...RECORD_ATTEMPT,
    values: [a.eventId, a.attempt, a.url, a.statusCode, a.latencyMs, a.error, a.nextRetryAt, a.delivered],
  });
}

/** The tries at these callbacks, newest first. */
export function listFor(em: EntityManager, eventIds: string[]): Promise<AttemptRow[]> {
  return em.execute<AttemptRow[]>(
    `select event_id, attempt, status_code, latency_ms, error, next_retry_at, created_at from webhook_attempts
     where event_id in (${eventIds.map(() => '?').join(', ')}) order by id desc`,
    eventIds,
  );
}
