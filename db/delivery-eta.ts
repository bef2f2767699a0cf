import type { EntityManager } from '@mikro-orm/postgresql';
import type { EtaFigures } from '../domain/eta';
import { poolQuery } from './pool-query';
import { COMMIT_WITHOUT_WAITING_FOR_DISK } from './lossy-commit';

/**
 * A delivery's ETA, kept in `delivery_etas` so every API process shares one figure. Whichever
 * process first finds it stale claims the refresh; the others serve the kept figure meanwhile. A
 * status change computes it afresh and stores it with the change, in the change's one statement
 * (db/transitions.ts), so its callback carries it.
 * Apart from the delivery's row: a refresh every 20 s of a live job would otherwise move the
 * row's version, and with it every kept answer about the delivery (docs/decisions/0175).
 */

const CLAIM_REFRESH = {
  name: 'eta-claim-refresh',
  text: `insert into delivery_etas as e (delivery_id, computed_at) select $1::uuid, now() from ${COMMIT_WITHOUT_WAITING_FOR_DISK}
         on conflict (delivery_id) do update set computed_at = now()
           where e.computed_at is null or e.computed_at <= now() - make_interval(secs => $2::float8)
         returning e.delivery_id`,
};

/**
 * Claims the refresh when the figure is older than `refreshSeconds`, or was never computed;
 * false when it is fresh or another process claimed it first. Judged by the database clock, so
 * API hosts with skewed clocks still agree on what is stale. The claim and the figures a read
 * stores commit without waiting for the disk: a crash may lose a figure, which the next read
 * computes again.
 */
export async function claimRefresh(em: EntityManager, deliveryId: string, refreshSeconds: number): Promise<boolean> {
  return (await poolQuery(em).query({ ...CLAIM_REFRESH, values: [deliveryId, refreshSeconds] })).rows.length > 0;
}

const SAVE = {
  name: 'eta-save',
  text: `update delivery_etas set eta_min = $2, eta_legs_min = $3, eta_times = $4 from ${COMMIT_WITHOUT_WAITING_FOR_DISK} where delivery_id = $1`,
};

/** Stores the minutes to the final drop and to each additional stop, by position, and the times (after a claim). */
export async function save(em: EntityManager, deliveryId: string, eta: EtaFigures): Promise<void> {
  await poolQuery(em).query({ ...SAVE, values: [deliveryId, eta.finalMin, JSON.stringify(eta.legsMin), JSON.stringify(eta.times)] });
}

