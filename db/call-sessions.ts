import type { EntityManager } from '@mikro-orm/postgresql';
import { ACTIVE_FOR_RIDER } from '../domain/lifecycle';
import type { CallSessionStore } from '../integrations/calling/local-bridge';
import type { ProxySessionStore } from '../integrations/calling/twilio-proxy';

/**
 * The local call bridge's sessions and calls (integrations/calling/local-bridge.ts), read by
 * `npm run ops -- calls` and the tests. A session's job counts as active while its rider still
 * holds it in a status it is active for a rider in (ACTIVE_FOR_RIDER in domain/lifecycle.ts).
 */

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
         from call_sessions c join deliveries d on d.id = c.delivery_id where c.proxy_number = ?`,
        // As an array literal: MikroORM writes a JavaScript array into the SQL as a list of values.
        [`{${ACTIVE_FOR_RIDER.join(',')}}`, proxyNumber],
      );
      if (!row) return null;
      return { sessionId: row.id, recipientPhone: row.recipient_phone, expiresAt: new Date(row.expires_at), closed: row.closed, jobActive: row.job_active };
    },
    async record({ sessionId, dialled, caller, bridgedTo, refused }) {
      await em().execute('insert into call_log (session_id, dialled, caller, bridged_to, refused) values (?, ?, ?, ?, ?)', [
        sessionId,
        dialled,
        caller,
        bridgedTo,
        refused,
      ]);
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
