import type { EntityManager } from '@mikro-orm/postgresql';

/** Resolves once Postgres answers a trivial query: the readiness probe's database check. */
export async function ping(em: EntityManager): Promise<void> {
  await em.execute('select 1');
}
