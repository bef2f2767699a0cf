import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Settings } from '../../config/settings';
import * as sessions from '../../db/sessions';

/**
 * The key that signs dashboard cookies. SESSION_SECRET when set; otherwise one generated on
 * first start and kept in the database, so every API process signs alike with nothing to configure.
 */
export async function loadCookieSecret(orm: MikroORM, settings: Settings): Promise<string> {
  if (settings.sessionSecret) return settings.sessionSecret;
  const secret = await sessions.keepCookieSecret(orm.em.fork(), randomBytes(32).toString('base64url'));
  if (secret === null) throw new Error('The dashboard cookie secret is missing');
  return secret;
}
