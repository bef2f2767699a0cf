import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyMode } from '../domain/api-key';
import { poolQuery } from './pool-query';

/**
 * Unpaid work (docs/decisions/0157-unpaid-work.md): a partner's debits, in one mode, that ended
 * `failed` after its latest `paid` one, after an operator last lifted its hold, and within the
 * last day, in the order their outcomes were recorded.
 */

export interface UnpaidOwner {
  partnerId: string;
  mode: KeyMode;
}

/**
 * Every booking asks, so it is one prepared statement on a client of the pool. Both reads walk
 * the partner's settled debits newest first (`debits_partner_outcomes_idx`) and stop at its
 * latest paid one: a partner that pays reads one entry, one that does not reads its failures.
 */
const UNPAID = {
  name: 'booking-unpaid-deliveries',
  text: `
    with since as (
      select greatest(now() - interval '1 day',
        coalesce((select unpaid_cleared_at from unpaid_clearances where partner_id = $1 and mode = $2), '-infinity')) as at
    ), counted_from as (
      select greatest(since.at, (
        select max(settled_at) from (
          select settled_at from debits
          where partner_id = $1 and mode = $2 and state = 'paid' and settled_at > since.at
          order by settled_at desc limit 1) as latest_paid)) as at
      from since
    )
    select count(*)::integer as unpaid from debits, counted_from
    where partner_id = $1 and mode = $2 and state = 'failed' and settled_at > counted_from.at`,
};

/** How many of the partner's deliveries in this mode are unpaid work now. */
export async function countUnpaid(em: EntityManager, { partnerId, mode }: UnpaidOwner): Promise<number> {
  const { rows } = await poolQuery(em).query<{ unpaid: number }>({ ...UNPAID, values: [partnerId, mode] });
  return rows[0]?.unpaid ?? 0;
}

/**
 * An operator lifts the hold: the failures recorded until now stop counting (later ones count
 * again). Returns how many counted just before, and when the hold was lifted.
 */
export async function clearUnpaid(em: EntityManager, owner: UnpaidOwner): Promise<{ unpaid: number; clearedAt: Date }> {
  const unpaid = await countUnpaid(em, owner);
  const [row] = await em.execute<{ unpaid_cleared_at: Date }[]>(
    `insert into unpaid_clearances (partner_id, mode, unpaid_cleared_at) values (?, ?, now())
     on conflict (partner_id, mode) do update set unpaid_cleared_at = excluded.unpaid_cleared_at
     returning unpaid_cleared_at`,
    [owner.partnerId, owner.mode],
  );
  return { unpaid, clearedAt: new Date(row!.unpaid_cleared_at) };
}
