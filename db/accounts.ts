import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { displayPrefix, generateSecret, hashSecret, type KeyMode } from '../domain/api-key';
import { endPartnerSessions } from './sessions';

/**
 * Partners, the links that confirm their email addresses, and their API keys: the records shared
 * by the operator commands, the dashboard, the key check of every API request and the tests.
 */

/** A partner as log-in and sign-up look it up. */
export interface PartnerLogin {
  id: string;
  email: string;
  business_name: string;
  password_hash: string | null;
  confirmed: boolean;
}

/** The account whose address is `email`, compared without case; null when none uses it. */
export async function findPartnerByEmail(em: EntityManager, email: string): Promise<PartnerLogin | null> {
  const [row] = await em.execute<PartnerLogin[]>(
    `select id, email, business_name, password_hash, email_confirmed_at is not null as confirmed
         from partners where lower(email) = lower(?)`,
    [email],
  );
  return row ?? null;
}

export async function findPartner(em: EntityManager, partnerId: string): Promise<Omit<PartnerLogin, 'password_hash'> | null> {
  const [row] = await em.execute<Omit<PartnerLogin, 'password_hash'>[]>(
    'select id, email, business_name, email_confirmed_at is not null as confirmed from partners where id = ?',
    [partnerId],
  );
  return row ?? null;
}

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

/** Stores a link's token (as its hash) for `purpose` (confirmation or reset), valid for `hours` by the database clock. */
export async function issueEmailToken(
  em: EntityManager,
  input: { tokenHash: string; partnerId: string; purpose: string; hours: number },
): Promise<void> {
  await em.execute(
    `insert into email_tokens (token_hash, partner_id, purpose, expires_at) values (?, ?, ?, now() + ? * interval '1 hour')`,
    [input.tokenHash, input.partnerId, input.purpose, input.hours],
  );
}

/**
 * Uses an unexpired, unused confirmation token: its partner's address counts as confirmed (see
 * confirmAddress), and every other unused link sent for it is spent too, all in one transaction.
 * `keepSid` is the session of the request that confirms, kept when the confirmation ends the
 * others. The partner's id, or null when the token is unknown, used or expired.
 */
export async function confirmEmail(em: EntityManager, input: { tokenHash: string; purpose: string; keepSid: string | null }): Promise<string | null> {
  const done = await em.transactional(async (tx) => {
    const [used] = await tx.execute<{ partner_id: string }[]>(
      `update email_tokens set used_at = now()
           where token_hash = ? and purpose = ? and used_at is null and expires_at > now() returning partner_id`,
      [input.tokenHash, input.purpose],
    );
    if (!used) return null;
    const revoked = await confirmAddress(tx, used.partner_id, input.keepSid);
    // The other links sent to this address have nothing left to do.
    await tx.execute('update email_tokens set used_at = now() where partner_id = ? and purpose = ? and used_at is null', [
      used.partner_id,
      input.purpose,
    ]);
    return { partnerId: used.partner_id, revoked };
  });
  if (!done) return null;
  announceRevoked(done.revoked);
  return done.partnerId;
}

/**
 * Marks a partner's address confirmed, inside the caller's transaction. An address signed up for
 * more than once before this had more than one password on it, and any could be a stranger's: so
 * confirming it revokes every key the account holds (each was made before this moment) and ends
 * every dashboard session but `keepSid`. The ids of the keys revoked, for the caller to announce
 * once its transaction has committed; none when the address was confirmed already.
 */
async function confirmAddress(tx: EntityManager, partnerId: string, keepSid: string | null): Promise<string[]> {
  const [row] = await tx.execute<{ contested: boolean }[]>(
    'update partners set email_confirmed_at = now() where id = ? and email_confirmed_at is null returning sign_ups > 1 as contested',
    [partnerId],
  );
  if (!row?.contested) return [];
  const revoked = await tx.execute<{ id: string }[]>(
    'update api_keys set revoked_at = now() where partner_id = ? and revoked_at is null returning id',
    [partnerId],
  );
  await endPartnerSessions(tx, partnerId, keepSid);
  return revoked.map((key) => key.id);
}

/**
 * A new sign-up for an address whose account is still unconfirmed: the newest password and name
 * replace the pending ones and the links sent before are spent, so the link in the mailbox
 * confirms the account whose password its reader chose. The account's count of sign-ups goes up,
 * which marks it contested: its next link, opened anywhere but the browser of this sign-up, asks
 * its reader for a password instead of confirming this one (see findConfirmLink). Returns this
 * sign-up's number (2 for the first replacement), or null when the account is confirmed (by then,
 * or all along), which is never changed this way.
 */
export async function replacePendingSignUp(
  em: EntityManager,
  input: { partnerId: string; passwordHash: string; businessName: string; purpose: string },
): Promise<number | null> {
  return em.transactional(async (tx) => {
    const [row] = await tx.execute<{ sign_ups: number }[]>(
      `update partners set password_hash = ?, business_name = ?, sign_ups = sign_ups + 1
           where id = ? and email_confirmed_at is null returning sign_ups`,
      [input.passwordHash, input.businessName.trim(), input.partnerId],
    );
    if (!row) return null;
    await tx.execute('update email_tokens set used_at = now() where partner_id = ? and purpose = ? and used_at is null', [
      input.partnerId,
      input.purpose,
    ]);
    return row.sign_ups;
  });
}

/** The account an unused, unexpired confirmation link is for, as its page needs it. */
export interface ConfirmLink {
  partner_id: string;
  email: string;
  business_name: string;
  confirmed: boolean;
  /** How many sign-ups the address has had while unconfirmed: over 1, the account is contested. */
  sign_ups: number;
}

/**
 * Reads a link without using it, so the page can decide whether one click may confirm. A link
 * still unused was sent after the account's latest sign-up (a replacement spends the older ones,
 * in the same transaction that counts it), so `sign_ups` is the number of the sign-up it confirms.
 */
export async function findConfirmLink(em: EntityManager, tokenHash: string, purpose: string): Promise<ConfirmLink | null> {
  const [row] = await em.execute<ConfirmLink[]>(
    `select p.id as partner_id, p.email, p.business_name, p.email_confirmed_at is not null as confirmed, p.sign_ups
         from email_tokens t join partners p on p.id = t.partner_id
         where t.token_hash = ? and t.purpose = ? and t.used_at is null and t.expires_at > now()`,
    [tokenHash, purpose],
  );
  return row ?? null;
}

/**
 * The reader of the mailbox takes a contested account: uses an unexpired, unused confirmation
 * token, sets the password and business name they chose, confirms the address, revokes every key
 * of the account, spends the other links and ends every dashboard session of the account (the
 * caller logs its own browser in afterwards), all in one transaction. The partner's id, or null
 * when the link does not work.
 */
export async function claimPendingSignUp(
  em: EntityManager,
  input: { tokenHash: string; purpose: string; passwordHash: string; businessName: string },
): Promise<string | null> {
  return setPasswordByLink(em, input, { businessName: input.businessName.trim() });
}

/** The stored password hash of a partner (for a change of password, which asks for the current one). */
export async function findPasswordHash(em: EntityManager, partnerId: string): Promise<string | null> {
  const [row] = await em.execute<{ password_hash: string | null }[]>('select password_hash from partners where id = ?', [partnerId]);
  return row?.password_hash ?? null;
}

/** Sets a partner's password hash and ends its other dashboard sessions, in one transaction. */
export async function setPassword(em: EntityManager, input: { partnerId: string; passwordHash: string; keepSid: string | null }): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute('update partners set password_hash = ? where id = ?', [input.passwordHash, input.partnerId]);
    await endPartnerSessions(tx, input.partnerId, input.keepSid);
  });
}

/** Whether a link's token is unexpired and unused, so its page can show the form or say at once that it does not work. */
export async function emailTokenUsable(em: EntityManager, tokenHash: string, purpose: string): Promise<boolean> {
  const rows = await em.execute<unknown[]>(
    'select 1 from email_tokens where token_hash = ? and purpose = ? and used_at is null and expires_at > now()',
    [tokenHash, purpose],
  );
  return rows.length === 1;
}

/**
 * Uses an unexpired, unused reset token: the partner's password becomes `passwordHash`, every
 * other unused reset link is spent and all its dashboard sessions end. Whoever opened the link
 * reads the mailbox, so the address counts as confirmed too. The partner's id, or null.
 */
export async function resetPassword(em: EntityManager, input: { tokenHash: string; purpose: string; passwordHash: string }): Promise<string | null> {
  return setPasswordByLink(em, input);
}

/**
 * What a confirmation or reset link does once its form is sent, in one transaction: uses the
 * link (unexpired, unused), sets the password (and `also`'s columns), confirms the address (its
 * reader holds the mailbox), spends the account's other links of that purpose and ends every
 * dashboard session of it; confirming a contested address revokes its keys too (confirmAddress).
 * The partner's id, or null when the link does not work.
 */
async function setPasswordByLink(
  em: EntityManager,
  input: { tokenHash: string; purpose: string; passwordHash: string },
  also: { businessName?: string } = {},
): Promise<string | null> {
  const done = await em.transactional(async (tx) => {
    const [used] = await tx.execute<{ partner_id: string }[]>(
      `update email_tokens set used_at = now()
           where token_hash = ? and purpose = ? and used_at is null and expires_at > now() returning partner_id`,
      [input.tokenHash, input.purpose],
    );
    if (!used) return null;
    await tx.execute('update partners set password_hash = ?, business_name = coalesce(?, business_name) where id = ?', [
      input.passwordHash,
      also.businessName ?? null,
      used.partner_id,
    ]);
    const revoked = await confirmAddress(tx, used.partner_id, null);
    await tx.execute('update email_tokens set used_at = now() where partner_id = ? and purpose = ? and used_at is null', [
      used.partner_id,
      input.purpose,
    ]);
    await endPartnerSessions(tx, used.partner_id);
    return { partnerId: used.partner_id, revoked };
  });
  if (!done) return null;
  announceRevoked(done.revoked);
  return done.partnerId;
}

/** Thrown by createApiKey when the partner already holds `maxActive` unrevoked keys. */
export class ApiKeyLimitReached extends Error {
  constructor(readonly maxActive: number) {
    super(`A partner may hold at most ${maxActive} active API keys`);
  }
}

/**
 * Creates a key and returns its secret, which is shown this once and stored only as a hash. With `maxActive` (the dashboard), refused by
 * ApiKeyLimitReached when the partner already holds that many unrevoked keys, both modes
 * together; the partner's row is locked meanwhile, so two creations at once cannot both pass.
 */
export async function createApiKey(
  em: EntityManager,
  input: { partnerId: string; label: string; mode: KeyMode; maxActive?: number },
): Promise<{ keyId: string; apiKey: string; prefix: string }> {
  return em.transactional(async (tx) => {
    const [partner] = await tx.execute<{ confirmed: boolean }[]>(
      `select email_confirmed_at is not null as confirmed from partners where id = ?${input.maxActive === undefined ? '' : ' for update'}`,
      [input.partnerId],
    );
    if (!partner) throw new Error('Unknown partner');
    if (!partner.confirmed) throw new Error('Confirm the email address before creating a key');
    if (input.maxActive !== undefined) {
      const [held] = await tx.execute<{ n: number }[]>('select count(*)::int as n from api_keys where partner_id = ? and revoked_at is null', [
        input.partnerId,
      ]);
      if ((held?.n ?? 0) >= input.maxActive) throw new ApiKeyLimitReached(input.maxActive);
    }
    const apiKey = generateSecret(input.mode, 'sk');
    const keyId = randomUUID();
    const prefix = displayPrefix(apiKey);
    await tx.execute(`insert into api_keys (id, partner_id, mode, label, prefix, key_hash) values (?, ?, ?, ?, ?, ?)`, [
      keyId,
      input.partnerId,
      input.mode,
      input.label,
      prefix,
      hashSecret(apiKey),
    ]);
    return { keyId, apiKey, prefix };
  });
}

/** A key as the dashboard lists it: never its hash. */
export interface ApiKeyListing {
  id: string;
  label: string;
  mode: KeyMode;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** A partner's keys of one mode: usable ones first, newest first. */
export async function listApiKeys(em: EntityManager, partnerId: string, mode: KeyMode): Promise<ApiKeyListing[]> {
  return em.execute<ApiKeyListing[]>(
    `select id, label, mode, prefix, created_at, last_used_at, revoked_at from api_keys
       where partner_id = ? and mode = ? order by revoked_at is not null, created_at desc`,
    [partnerId, mode],
  );
}

/**
 * Every key of a partner, both modes: usable ones first, live before test, newest first. What an
 * owner checks after a password reset, when a stranger may have made keys of either mode.
 */
export async function listEveryApiKey(em: EntityManager, partnerId: string): Promise<ApiKeyListing[]> {
  return em.execute<ApiKeyListing[]>(
    `select id, label, mode, prefix, created_at, last_used_at, revoked_at from api_keys
       where partner_id = ? order by revoked_at is not null, mode = 'test', created_at desc`,
    [partnerId],
  );
}

/** An unrevoked key found by its hash, and whether its last-used time is over a minute old. */
export async function findUsableApiKey(
  em: EntityManager,
  keyHash: string,
): Promise<{ id: string; partner_id: string; mode: KeyMode; stale: boolean } | null> {
  const [key] = await em.execute<{ id: string; partner_id: string; mode: KeyMode; stale: boolean }[]>(
    `select id, partner_id, mode, (last_used_at is null or last_used_at < now() - interval '60 seconds') as stale
         from api_keys where key_hash = ? and revoked_at is null`,
    [keyHash],
  );
  return key ?? null;
}

export async function markApiKeyUsed(em: EntityManager, keyId: string): Promise<void> {
  await em.execute('update api_keys set last_used_at = now() where id = ?', [keyId]);
}

const revocationListeners = new Set<(keyId: string) => void>();

/** Tells `listener` of every key revoked by this process, so a cache of valid keys drops it at once. */
export function onApiKeyRevoked(listener: (keyId: string) => void): void {
  revocationListeners.add(listener);
}

/** Called once the revocation has committed: a cache refilled before the commit would keep the key. */
function announceRevoked(keyIds: readonly string[]): void {
  for (const keyId of keyIds) for (const listener of revocationListeners) listener(keyId);
}

export async function revokeApiKey(em: EntityManager, partnerId: string, keyId: string): Promise<boolean> {
  const rows = await em.execute<unknown[]>(
    'update api_keys set revoked_at = now() where id = ? and partner_id = ? and revoked_at is null returning id',
    [keyId, partnerId],
  );
  if (rows.length === 1) announceRevoked([keyId]);
  return rows.length === 1;
}

/** A rider and the token their app authenticates with (`rk_…`), shown once. */
export async function createRider(
  em: EntityManager,
  input: { name: string; vehicle?: string | null; phone?: string | null; lat?: number | null; lng?: number | null; tokenDays?: number },
): Promise<{ riderId: string; riderToken: string }> {
  const riderId = randomUUID();
  const riderToken = generateSecret('live', 'rk');
  const located = input.lat !== undefined && input.lat !== null && input.lng !== undefined && input.lng !== null;
  // Only the hash is kept; the token is shown once, to the operator who issues it.
  await em.execute(
    `insert into riders (id, name, vehicle, phone, token_hash, token_expires_at, lat, lng, located_at)
     values (?, ?, ?, ?, ?, now() + make_interval(days => ?), ?, ?, ?)`,
    [
      riderId,
      input.name,
      input.vehicle ?? null,
      input.phone ?? null,
      hashSecret(riderToken),
      input.tokenDays ?? 30,
      input.lat ?? null,
      input.lng ?? null,
      located ? new Date() : null,
    ],
  );
  return { riderId, riderToken };
}
