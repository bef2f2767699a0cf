import type { EntityManager } from '@mikro-orm/postgresql';
import { TERMINAL_STATUSES } from '../domain/lifecycle';
import { REDACTED_NAME, REDACTED_PHONE } from '../domain/retention';
import { poolQuery, poolTransaction } from './pool-query';

/**
 * Recipients' personal data, removed once it is no longer needed (activities/retention.ts): the
 * hand-over codes when the job ends, and the names, phones, notes and photos of a finished
 * delivery RETENTION_DAYS after it ended, in every table that keeps a copy.
 */

const FINISHED = [...TERMINAL_STATUSES];
/** The same as an SQL list, written out so the planner matches deliveries_to_redact_idx's predicate. */
const FINISHED_SQL = TERMINAL_STATUSES.map((status) => `'${status}'`).join(', ');

/**
 * Finished deliveries not yet redacted that ended before `cutoff`, oldest first, at most `limit`.
 * A delivery ends at its terminal status's trail entry; it was made before that, so the partial
 * index on `created_at` (deliveries_to_redact_idx) narrows the read to those made before `cutoff`.
 */
export async function finishedBefore(em: EntityManager, cutoff: Date, limit: number): Promise<string[]> {
  const { rows } = await poolQuery(em).query<{ id: string }>(
    `select d.id from deliveries d
     where d.redacted_at is null and d.status in (${FINISHED_SQL}) and d.created_at < $1
       and coalesce((select e.created_at from delivery_events e where e.delivery_id = d.id and e.status = d.status), d.updated_at) < $1
     order by d.created_at limit $2`,
    [cutoff, limit],
  );
  return rows.map((row) => row.id);
}

/** The keys of the hand-over photos these deliveries keep in the photo store. */
export async function photoKeysOf(em: EntityManager, deliveryIds: string[]): Promise<string[]> {
  if (deliveryIds.length === 0) return [];
  const { rows } = await poolQuery(em).query<{ storage_key: string }>('select storage_key from handover_photos where delivery_id = any($1::uuid[])', [
    deliveryIds,
  ]);
  return rows.map((row) => row.storage_key);
}

/**
 * Redacts the recipients of those of `deliveryIds` that are finished and not yet redacted, in one
 * transaction, and returns their ids. Names and phones become placeholders (domain/retention.ts)
 * in the delivery, its stops and its masked-call sessions and call log; the notes for the rider go,
 * as do the stored callback bodies (the log of each callback and its tries stays), any hand-over
 * code still kept, and the rows of the photos whose files `removedPhotoKeys` were removed.
 */
export async function redact(em: EntityManager, deliveryIds: string[], removedPhotoKeys: string[]): Promise<string[]> {
  if (deliveryIds.length === 0) return [];
  return poolTransaction(em, async (tx) => {
    // Locked, so a delivery is redacted once however many rounds or operators ask at the same time.
    const { rows } = await tx.query<{ id: string }>(
      `select id from deliveries where id = any($1::uuid[]) and redacted_at is null and status = any($2::text[]) for update`,
      [deliveryIds, FINISHED],
    );
    const ids = rows.map((row) => row.id);
    if (ids.length === 0) return [];
    await tx.query(
      `update deliveries set recipient_name = $2, recipient_phone = $3, package_description = null, redacted_at = now()
       where id = any($1::uuid[])`,
      [ids, REDACTED_NAME, REDACTED_PHONE],
    );
    await tx.query('update delivery_stops set recipient_name = $2, recipient_phone = $3, package_description = null where delivery_id = any($1::uuid[])', [
      ids,
      REDACTED_NAME,
      REDACTED_PHONE,
    ]);
    await tx.query('update webhook_events set body = null where delivery_id = any($1::uuid[]) and body is not null', [ids]);
    await tx.query(
      `update call_log set caller = case when caller is null then null else $2 end, bridged_to = case when bridged_to is null then null else $2 end
       where session_id in (select id from call_sessions where delivery_id = any($1::uuid[]))`,
      [ids, REDACTED_PHONE],
    );
    await tx.query('update call_sessions set recipient_phone = $2 where delivery_id = any($1::uuid[])', [ids, REDACTED_PHONE]);
    await tx.query('update proxy_call_sessions set recipient_phone = $2 where delivery_id = any($1::uuid[])', [ids, REDACTED_PHONE]);
    await tx.query('delete from sms_outbox where delivery_id = any($1::uuid[])', [ids]);
    await tx.query('delete from delivery_otps where delivery_id = any($1::uuid[])', [ids]);
    await tx.query('delete from handover_photos where delivery_id = any($1::uuid[]) and storage_key = any($2::text[])', [ids, removedPhotoKeys]);
    return ids;
  });
}

/**
 * Removes the hand-over codes (the texts kept in the outbox and the codes' hashes) of jobs that are
 * no longer active. The transition that ends a job removes them already (db/transitions.ts); this
 * catches a code written as its job ended. Returns how many texts and hashes went.
 */
export async function forgetEndedJobCodes(em: EntityManager): Promise<{ texts: number; codes: number }> {
  const db = poolQuery(em);
  const texts = await db.query(
    `delete from sms_outbox o using deliveries d where d.id = o.delivery_id and d.status = any($1::text[])`,
    [FINISHED],
  );
  const codes = await db.query(`delete from delivery_otps c using deliveries d where d.id = c.delivery_id and d.status = any($1::text[])`, [FINISHED]);
  return { texts: texts.rowCount ?? 0, codes: codes.rowCount ?? 0 };
}

/**
 * The deliveries a recipient with this phone was named in (at the drop-off or a stop), for an
 * operator asked to remove that recipient's data: those finished and not yet redacted, and those
 * still under way, which keep it until they end.
 */
export async function deliveriesOfRecipient(em: EntityManager, phone: string): Promise<{ finished: string[]; active: string[] }> {
  const { rows } = await poolQuery(em).query<{ id: string; finished: boolean }>(
    `select d.id, d.status = any($2::text[]) as finished from deliveries d
     where d.redacted_at is null
       and (d.recipient_phone = $1 or exists (select 1 from delivery_stops s where s.delivery_id = d.id and s.recipient_phone = $1))
     order by d.created_at`,
    [phone, FINISHED],
  );
  return { finished: rows.filter((row) => row.finished).map((row) => row.id), active: rows.filter((row) => !row.finished).map((row) => row.id) };
}
