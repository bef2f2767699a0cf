import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The ETA cached on a delivery's row, so every API process shares one figure. Whichever process
 * first finds it stale claims the refresh; the others serve the cached figure meanwhile.
 */

/**
 * Claims the refresh when the figure is older than `refreshSeconds`, or was never computed;
 * false when it is fresh or another process claimed it first. Judged by the database clock, so
 * API hosts with skewed clocks still agree on what is stale.
 */
export async function claimRefresh(em: EntityManager, deliveryId: string, refreshSeconds: number): Promise<boolean> {
  const claimed = await em.execute<{ id: string }[]>(
    `update deliveries set eta_computed_at = now()
     where id = ? and (eta_computed_at is null or eta_computed_at <= now() - make_interval(secs => ?))
     returning id`,
    [deliveryId, refreshSeconds],
  );
  return claimed.length > 0;
}

/** Stores the minutes to the final drop and to each additional stop, by position. */
export async function save(em: EntityManager, deliveryId: string, eta: { finalMin: number; legsMin: (number | null)[] }): Promise<void> {
  await em.execute('update deliveries set eta_min = ?, eta_legs_min = ? where id = ?', [eta.finalMin, JSON.stringify(eta.legsMin), deliveryId]);
}

/** The cached figure; nulls when none is stored (or there is no such delivery). */
export async function read(em: EntityManager, deliveryId: string): Promise<{ finalMin: number | null; legsMin: (number | null)[] | null }> {
  const [row] = await em.execute<{ eta_min: number | null; eta_legs_min: (number | null)[] | null }[]>(
    'select eta_min, eta_legs_min from deliveries where id = ?',
    [deliveryId],
  );
  return { finalMin: row?.eta_min ?? null, legsMin: row?.eta_legs_min ?? null };
}
