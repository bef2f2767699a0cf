import type { Orm } from '../../db/orm';
import { eventually } from './http';

/**
 * Holds one row locked in a transaction of its own, so a write to it waits as it would on a stuck
 * database: the way the tests make a workflow's write slow without touching our code.
 */
export async function holdRow(orm: Orm, table: 'deliveries' | 'riders', id: string) {
  const knex = orm.em.getConnection().getKnex();
  const lock = await knex.transaction();
  await lock.raw(`select id from ${table} where id = ? for update`, [id]);
  return {
    /** Resolves once a statement containing `statement` (alone or as a part of a larger one) is waiting on a lock. */
    waitingFor: (statement: string) =>
      eventually(
        async () => {
          const { rows } = await knex.raw(
            `select count(*)::int as waiting from pg_stat_activity where wait_event_type = 'Lock' and query like ?`,
            [`%${statement}%`],
          );
          return rows[0].waiting > 0;
        },
        10_000,
        `"${statement}" waiting on the ${table} row`,
      ),
    release: async () => {
      if (!lock.isCompleted()) await lock.rollback();
    },
  };
}
