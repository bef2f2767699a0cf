import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Keys the service makes for itself and keeps in the database (beside the dashboard's cookie
 * secret), so every API process signs alike with nothing to configure.
 */

/** The photo-link key: `candidate` is stored when there is none yet, and the first process to store one wins. */
export async function keepPhotoLinkKey(em: EntityManager, candidate: string): Promise<string | null> {
  await em.execute(`insert into dashboard_secrets (name, value) values ('proof-photo-links', ?) on conflict (name) do nothing`, [candidate]);
  const [row] = await em.execute<{ value: string }[]>(`select value from dashboard_secrets where name = 'proof-photo-links'`);
  return row?.value ?? null;
}
