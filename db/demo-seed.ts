import type { EntityManager } from '@mikro-orm/postgresql';

/** What `npm start` seeds for the demo partner beyond its account (scripts/seed-demo.ts). */

/**
 * A default test-mode Mobile Money account on the sandbox network, unless the partner has a
 * test-mode account already: the seed runs on every start and must not pile them up.
 */
export async function ensureDemoPaymentMethod(em: EntityManager, partnerId: string): Promise<void> {
  await em.execute(
    `insert into payment_methods (id, partner_id, mode, provider, phone, account_name, is_default)
       select gen_random_uuid(), ?, 'test', 'network_a', '+233241234567', 'Demo Shop Ltd', true
       where not exists (select 1 from payment_methods where partner_id = ? and mode = 'test' and deleted_at is null)`,
    [partnerId, partnerId],
  );
}

/**
 * Live-mode API keys ever issued in this database, revoked ones too: any one means real partners
 * use it, and the demo partner, whose password is published, must not be added there.
 */
export async function liveKeysIssued(em: EntityManager): Promise<number> {
  const [row] = await em.execute<{ n: number }[]>(`select count(*)::int as n from api_keys where mode = 'live'`);
  return row?.n ?? 0;
}
