import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyMode } from '../domain/api-key';
import { WebhookEndpointSchema } from './entities';

/** Each partner's callback URL and signing secret, one per mode. */

export interface WebhookOwner {
  partnerId: string;
  mode: KeyMode;
}

/** The callback URL; null when none is set. */
export async function findUrl(em: EntityManager, { partnerId, mode }: WebhookOwner): Promise<string | null> {
  return (await em.findOne(WebhookEndpointSchema, { partnerId, mode }))?.url ?? null;
}

/** Sets the URL and its secret (null and null clear them). */
export async function set(em: EntityManager, { partnerId, mode }: WebhookOwner, endpoint: { url: string | null; secret: string | null }): Promise<void> {
  await em.execute(
    `insert into webhook_endpoints (partner_id, mode, url, secret, updated_at) values (?, ?, ?, ?, now())
     on conflict (partner_id, mode) do update set url = excluded.url, secret = excluded.secret, updated_at = now()`,
    [partnerId, mode, endpoint.url, endpoint.secret],
  );
}
