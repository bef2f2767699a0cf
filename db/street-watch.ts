import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The street watch's reads and writes: riders gone silent or signed out, set offline, and jobs
 * whose rider has sent neither a position nor a step for a while, flagged for an operator.
 */

/** Why a rider was set offline by the service rather than by the rider, as the rider app explains it. */
export type OfflineReason = 'silent' | 'signed_out';

/**
 * When each active job last heard from its rider: the rider's last position, the job's last
 * status change or stop handed over, whichever is latest. Jobs nobody holds (offered again after
 * an operator took them from a silent rider) have no rider to hear from, and a manual sandbox
 * rider moves only when its partner asks: a test job left for a day needs no operator.
 */
const HEARD = `
  select d.id, d.status, d.rider_id, d.attention_since,
         greatest(r.located_at,
                  (select max(e.created_at) from delivery_events e where e.delivery_id = d.id),
                  (select max(s.delivered_at) from delivery_stops s where s.delivery_id = d.id)) as heard_at
  from deliveries d join riders r on r.id = d.rider_id
  where d.status in ('accepted', 'picked_up', 'in_transit') and d.sandbox_rider is distinct from 'manual'`;

export interface SilentJob {
  delivery_id: string;
  status: string;
  rider_id: string;
  silent_since: Date;
}

/** Active jobs whose rider has been silent for at least `silentSeconds`, longest silent first. */
export async function silentJobs(em: EntityManager, silentSeconds: number): Promise<SilentJob[]> {
  return em.execute<SilentJob[]>(
    `select id as delivery_id, status, rider_id, heard_at as silent_since from (${HEARD}) j
     where heard_at < now() - (? * interval '1 second') order by heard_at`,
    [silentSeconds],
  );
}

/**
 * Flags jobs silent for `silentSeconds` and clears the flag of those heard from again, moved on
 * or finished; returns what changed, so their workflows can be told.
 */
export async function flagSilentJobs(
  em: EntityManager,
  silentSeconds: number,
): Promise<{ flagged: SilentJob[]; cleared: string[]; needingAttention: number }> {
  const [row] = await em.execute<{ flagged: SilentJob[] | null; cleared: string[] | null; needing: number }[]>(
    `with jobs as (${HEARD}),
     flagged as (
       update deliveries d set attention_since = j.heard_at from jobs j
       where d.id = j.id and d.attention_since is null and j.heard_at < now() - (? * interval '1 second')
       returning d.id, j.status, j.rider_id, j.heard_at),
     cleared as (
       update deliveries d set attention_since = null
       where d.attention_since is not null
         and not exists (select 1 from jobs j where j.id = d.id and j.heard_at < now() - (? * interval '1 second'))
       returning d.id)
     select (select json_agg(json_build_object('delivery_id', id, 'status', status, 'rider_id', rider_id, 'silent_since', heard_at)) from flagged) as flagged,
            (select json_agg(id) from cleared) as cleared,
            (select count(*)::int from jobs where heard_at < now() - (? * interval '1 second')) as needing`,
    [silentSeconds, silentSeconds, silentSeconds],
  );
  return {
    flagged: (row?.flagged ?? []).map((job) => ({ ...job, silent_since: new Date(job.silent_since) })),
    cleared: row?.cleared ?? [],
    needingAttention: row?.needing ?? 0,
  };
}

/**
 * Sets offline every online rider silent for `offlineSeconds`, or whose token was revoked or has
 * expired, with the reason; returns how many. A rider who never sent a position is left alone:
 * dispatch offers them nothing anyway.
 */
export async function setSilentRidersOffline(em: EntityManager, offlineSeconds: number): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    `update riders set online = false,
       offline_reason = case when token_hash is null or token_expires_at <= now() then 'signed_out' else 'silent' end
     where online and not is_robo
       and (located_at < now() - (? * interval '1 second') or token_hash is null or token_expires_at <= now())
     returning id`,
    [offlineSeconds],
  );
  return rows.length;
}
