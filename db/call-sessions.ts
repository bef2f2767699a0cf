import type { EntityManager } from '@mikro-orm/postgresql';
import { ACTIVE_FOR_RIDER } from '../domain/lifecycle';
import { isUniqueViolation } from './errors';
import type { PlacedCall } from '../integrations/calling/call-routing';
import type { CallSessionStore } from '../integrations/calling/local-bridge';
import type { NumberPoolStore, PoolSession } from '../integrations/calling/number-pool';
import type { ProxySessionStore } from '../integrations/calling/twilio-proxy';

/**
 * The local call bridge's and the number pool's sessions and calls (integrations/calling/), read
 * by `npm run ops -- calls` and the tests; a pool session names the rider's phone, a local one
 * does not. A session's job counts as active while its rider still holds it in a status it is
 * active for a rider in (ACTIVE_FOR_RIDER in domain/lifecycle.ts).
 */

/** ACTIVE_FOR_RIDER as an array literal: MikroORM writes a JavaScript array into the SQL as a list of values. */
const ACTIVE_STATUSES = `{${ACTIVE_FOR_RIDER.join(',')}}`;

/** One call placed through a masked number, bridged or refused, for `npm run ops -- calls`. */
async function recordCall(em: EntityManager, { sessionId, dialled, caller, bridgedTo, refused }: PlacedCall): Promise<void> {
  await em.execute('insert into call_log (session_id, dialled, caller, bridged_to, refused) values (?, ?, ?, ?, ?)', [sessionId, dialled, caller, bridgedTo, refused]);
}

/** The bridge's store on the ORM; `em` is asked for an entity manager at each call. */
export function callSessionStore(em: () => EntityManager): CallSessionStore {
  return {
    async open({ jobId, stopIndex, riderId, recipientPhone, expiresAt }) {
      // A live session is read, not written: the rider app reads its job every few seconds, and
      // each write would spend a proxy number. Fake proxy numbers sit in the 030 (Accra fixed
      // line) range, so none is a recipient's mobile.
      const [row] = await em().execute<{ id: string; proxy_number: string; expires_at: Date }[]>(
        `with live as (
           select id, proxy_number, expires_at from call_sessions
           where delivery_id = ? and stop_index = ? and rider_id = ? and recipient_phone = ? and closed_at is null and expires_at > now()
         ), opened as (
           insert into call_sessions (id, delivery_id, stop_index, rider_id, recipient_phone, proxy_number, expires_at)
           select gen_random_uuid(), ?, ?, ?, ?, '+23330' || lpad(nextval('call_proxy_numbers')::text, 7, '0'), ?
           where not exists (select 1 from live)
           on conflict (delivery_id, stop_index, rider_id)
             do update set recipient_phone = excluded.recipient_phone, expires_at = excluded.expires_at, closed_at = null
           returning id, proxy_number, expires_at
         )
         select * from live union all select * from opened`,
        [jobId, stopIndex, riderId, recipientPhone, jobId, stopIndex, riderId, recipientPhone, expiresAt],
      );
      return { sessionId: row!.id, proxyNumber: row!.proxy_number, expiresAt: new Date(row!.expires_at) };
    },
    async closeAll(jobId) {
      await em().execute('update call_sessions set closed_at = now() where delivery_id = ? and closed_at is null', [jobId]);
    },
    async route(proxyNumber) {
      const [row] = await em().execute<{ id: string; recipient_phone: string; expires_at: Date; closed: boolean; job_active: boolean }[]>(
        `select c.id, c.recipient_phone, c.expires_at, c.closed_at is not null as closed,
                coalesce(d.rider_id = c.rider_id and d.status = any(?::text[]), false) as job_active
         from call_sessions c join deliveries d on d.id = c.delivery_id where c.proxy_number = ? and c.rider_phone is null`,
        [ACTIVE_STATUSES, proxyNumber],
      );
      if (!row) return null;
      return { sessionId: row.id, recipientPhone: row.recipient_phone, expiresAt: new Date(row.expires_at), closed: row.closed, jobActive: row.job_active };
    },
    async record(call) {
      await recordCall(em(), call);
    },
  };
}

type PoolRow = { id: string; recipient_phone: string; rider_phone: string; proxy_number: string; expires_at: Date };

function poolSession(row: PoolRow): PoolSession {
  return { sessionId: row.id, recipientPhone: row.recipient_phone, riderPhone: row.rider_phone, poolNumber: row.proxy_number, expiresAt: new Date(row.expires_at) };
}

/** The number pool's store on the ORM (integrations/calling/number-pool.ts); `em` is asked for an entity manager at each call. */
export function numberPoolStore(em: () => EntityManager): NumberPoolStore {
  return {
    async current({ jobId, stopIndex, riderId }) {
      const [row] = await em().execute<PoolRow[]>(
        `select id, recipient_phone, rider_phone, proxy_number, expires_at from call_sessions
         where delivery_id = ? and stop_index = ? and rider_id = ? and rider_phone is not null and closed_at is null and expires_at > now()`,
        [jobId, stopIndex, riderId],
      );
      return row ? poolSession(row) : null;
    },
    async releaseStale(riderPhone) {
      await em().execute(
        `update call_sessions c set closed_at = now()
         where c.rider_phone = ? and c.closed_at is null
           and (c.expires_at <= now() or not exists (
             select 1 from deliveries d where d.id = c.delivery_id and d.rider_id = c.rider_id and d.status = any(?::text[])))`,
        [riderPhone, ACTIVE_STATUSES],
      );
    },
    async usage(riderPhone, { jobId, stopIndex, riderId }) {
      const rows = await em().execute<{ proxy_number: string; open_sessions: string; held: boolean }[]>(
        `select proxy_number, count(*) as open_sessions,
                bool_or(rider_phone = ? and not (delivery_id = ? and stop_index = ? and rider_id = ?)) as held
         from call_sessions where rider_phone is not null and closed_at is null group by proxy_number`,
        [riderPhone, jobId, stopIndex, riderId],
      );
      return {
        heldByCaller: rows.filter((row) => row.held).map((row) => row.proxy_number),
        openSessions: new Map(rows.map((row) => [row.proxy_number, Number(row.open_sessions)])),
      };
    },
    async claim({ jobId, stopIndex, riderId }, { recipientPhone, riderPhone, poolNumber, expiresAt }) {
      try {
        // A session still open for this phone and recipient is kept (a concurrent view made it).
        const [row] = await em().execute<PoolRow[]>(
          `with claimed as (
             insert into call_sessions (id, delivery_id, stop_index, rider_id, recipient_phone, rider_phone, proxy_number, expires_at)
             values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, ?)
             on conflict (delivery_id, stop_index, rider_id) do update set
               recipient_phone = excluded.recipient_phone, rider_phone = excluded.rider_phone,
               proxy_number = excluded.proxy_number, expires_at = excluded.expires_at, closed_at = null
             where call_sessions.closed_at is not null or call_sessions.expires_at <= now()
               or call_sessions.rider_phone is distinct from excluded.rider_phone
               or call_sessions.recipient_phone <> excluded.recipient_phone
             returning id, recipient_phone, rider_phone, proxy_number, expires_at
           )
           select * from claimed
           union all
           select id, recipient_phone, rider_phone, proxy_number, expires_at from call_sessions
           where delivery_id = ? and stop_index = ? and rider_id = ? and rider_phone = ? and recipient_phone = ?
             and closed_at is null and expires_at > now() and not exists (select 1 from claimed)`,
          [jobId, stopIndex, riderId, recipientPhone, riderPhone, poolNumber, expiresAt, jobId, stopIndex, riderId, riderPhone, recipientPhone],
        );
        return row ? poolSession(row) : null;
      } catch (error) {
        // The caller took this number in another open session meanwhile (call_sessions_pool_open_idx).
        if (isUniqueViolation(error)) return null;
        throw error;
      }
    },
    async closeAll(jobId) {
      await em().execute('update call_sessions set closed_at = now() where delivery_id = ? and closed_at is null', [jobId]);
    },
    async route(caller, dialled) {
      const [row] = await em().execute<{ id: string; recipient_phone: string; expires_at: Date; closed: boolean; job_active: boolean }[]>(
        `select c.id, c.recipient_phone, c.expires_at, c.closed_at is not null as closed,
                coalesce(d.rider_id = c.rider_id and d.status = any(?::text[]), false) as job_active
         from call_sessions c join deliveries d on d.id = c.delivery_id
         where c.rider_phone = ? and c.proxy_number = ?
         order by c.closed_at desc nulls first limit 1`,
        [ACTIVE_STATUSES, caller, dialled],
      );
      if (!row) return null;
      return { sessionId: row.id, recipientPhone: row.recipient_phone, expiresAt: new Date(row.expires_at), closed: row.closed, jobActive: row.job_active };
    },
    async record(call) {
      await recordCall(em(), call);
    },
  };
}

/** Every call placed through a delivery's sessions, oldest first (`npm run ops -- calls`). */
export async function readDeliveryCalls(
  em: EntityManager,
  deliveryId: string,
): Promise<{ dialled: string; stop_index: number; bridged_to: string | null; refused: string | null; created_at: string }[]> {
  const rows = await em.execute<{ dialled: string; stop_index: number; bridged_to: string | null; refused: string | null; created_at: Date }[]>(
    `select l.dialled, c.stop_index, l.bridged_to, l.refused, l.created_at
     from call_log l join call_sessions c on c.id = l.session_id where c.delivery_id = ? order by l.id`,
    [deliveryId],
  );
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
}

/**
 * An outside provider's sessions (integrations/calling/twilio-proxy.ts): its session id per (job,
 * recipient, rider), so a view of the job is answered from here and the job's end closes them.
 */
export function proxySessionStore(em: () => EntityManager, provider: string): ProxySessionStore {
  return {
    async find({ jobId, stopIndex, riderId }) {
      const [row] = await em().execute<
        { session_sid: string; recipient_phone: string; rider_phone: string | null; proxy_number: string; expires_at: Date; closed: boolean }[]
      >(
        `select session_sid, recipient_phone, rider_phone, proxy_number, expires_at, closed_at is not null as closed
         from proxy_call_sessions where delivery_id = ? and stop_index = ? and rider_id = ? and provider = ?`,
        [jobId, stopIndex, riderId, provider],
      );
      if (!row) return null;
      return {
        sessionSid: row.session_sid,
        recipientPhone: row.recipient_phone,
        riderPhone: row.rider_phone,
        proxyNumber: row.proxy_number,
        expiresAt: new Date(row.expires_at),
        closed: row.closed,
      };
    },
    async save({ jobId, stopIndex, riderId }, { sessionSid, recipientPhone, riderPhone, proxyNumber, expiresAt }) {
      await em().execute(
        `insert into proxy_call_sessions (delivery_id, stop_index, rider_id, provider, session_sid, recipient_phone, rider_phone, proxy_number, expires_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (delivery_id, stop_index, rider_id) do update set
           provider = excluded.provider, session_sid = excluded.session_sid, recipient_phone = excluded.recipient_phone,
           rider_phone = excluded.rider_phone, proxy_number = excluded.proxy_number, expires_at = excluded.expires_at, closed_at = null`,
        [jobId, stopIndex, riderId, provider, sessionSid, recipientPhone, riderPhone, proxyNumber, expiresAt],
      );
    },
    async openSessions(jobId) {
      const rows = await em().execute<{ session_sid: string }[]>(
        'select session_sid from proxy_call_sessions where delivery_id = ? and closed_at is null order by created_at',
        [jobId],
      );
      return rows.map((row) => row.session_sid);
    },
    async markClosed(sessionSid) {
      await em().execute('update proxy_call_sessions set closed_at = now() where session_sid = ? and closed_at is null', [sessionSid]);
    },
  };
}
