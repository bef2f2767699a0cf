import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Settings } from '../../config/settings';

/**
 * The key that signs dashboard cookies. SESSION_SECRET when set; otherwise one generated on
 * first start and kept in the database, so every API process signs alike with nothing to configure.
 */
export async function loadCookieSecret(orm: MikroORM, settings: Settings): Promise<string> {
  if (settings.sessionSecret) return settings.sessionSecret;
  const em = orm.em.fork();
  await em.execute(`insert into dashboard_secrets (name, value) values ('cookie', ?) on conflict (name) do nothing`, [
    randomBytes(32).toString('base64url'),
  ]);
  const [row] = await em.execute<{ value: string }[]>(`select value from dashboard_secrets where name = 'cookie'`);
  if (!row) throw new Error('The dashboard cookie secret is missing');
  return row.value;
}
