import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { displayPrefix, generateSecret, hashSecret, type KeyMode } from '../domain/api-key';

/** Account records shared by the operator commands, the dashboard and the tests. */

export async function createPartner(
  em: EntityManager,
  input: { email: string; businessName: string; passwordHash?: string | null; confirmed?: boolean },
): Promise<{ partnerId: string; email: string }> {
  const id = randomUUID();
  await em.execute(
    `insert into partners (id, email, business_name, password_hash, email_confirmed_at) values (?, ?, ?, ?, ?)`,
    [id, input.email.trim(), input.businessName.trim(), input.passwordHash ?? null, input.confirmed ? new Date() : null],
  );
  return { partnerId: id, email: input.email.trim() };
}

/** Creates a key and returns its secret, which is shown this once and stored only as a hash. */
export async function createApiKey(
  em: EntityManager,
  input: { partnerId: string; label: string; mode: KeyMode },
): Promise<{ keyId: string; apiKey: string; prefix: string }> {
  const [partner] = await em.execute<{ confirmed: boolean }[]>(
    'select email_confirmed_at is not null as confirmed from partners where id = ?',
    [input.partnerId],
  );
  if (!partner) throw new Error('Unknown partner');
  if (!partner.confirmed) throw new Error('Confirm the email address before creating a key');
  const apiKey = generateSecret(input.mode, 'sk');
  const keyId = randomUUID();
  const prefix = displayPrefix(apiKey);
  await em.execute(`insert into api_keys (id, partner_id, mode, label, prefix, key_hash) values (?, ?, ?, ?, ?, ?)`, [
    keyId,
    input.partnerId,
    input.mode,
    input.label,
    prefix,
    hashSecret(apiKey),
  ]);
  return { keyId, apiKey, prefix };
}

const revocationListeners = new Set<(keyId: string) => void>();

/** Tells `listener` of every key revoked by this process, so a cache of valid keys drops it at once. */
export function onApiKeyRevoked(listener: (keyId: string) => void): void {
  revocationListeners.add(listener);
}

export async function revokeApiKey(em: EntityManager, partnerId: string, keyId: string): Promise<boolean> {
  const rows = await em.execute<unknown[]>(
    'update api_keys set revoked_at = now() where id = ? and partner_id = ? and revoked_at is null returning id',
    [keyId, partnerId],
  );
  if (rows.length === 1) for (const listener of revocationListeners) listener(keyId);
  return rows.length === 1;
}

/** A rider and the token their app authenticates with (`rk_…`), shown once. */
export async function createRider(
  em: EntityManager,
  input: { name: string; vehicle?: string | null; lat?: number | null; lng?: number | null },
): Promise<{ riderId: string; riderToken: string }> {
  const riderId = randomUUID();
  const riderToken = generateSecret('live', 'rk');
  const located = input.lat !== undefined && input.lat !== null && input.lng !== undefined && input.lng !== null;
  await em.execute(
    `insert into riders (id, name, vehicle, token_hash, lat, lng, located_at) values (?, ?, ?, ?, ?, ?, ?)`,
    [riderId, input.name, input.vehicle ?? null, hashSecret(riderToken), input.lat ?? null, input.lng ?? null, located ? new Date() : null],
  );
  return { riderId, riderToken };
}
