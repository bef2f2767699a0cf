import { randomUUID } from 'node:crypto';
import type { Orm } from '../../db/orm';
import { displayPrefix, generateSecret, hashSecret, type KeyMode } from '../../domain/api-key';
import { ago, rows, write, type Age } from './db';

export interface PartnerRow {
  id: string;
  email: string;
  business_name: string;
  password_hash: string | null;
  /** Whether the owner confirmed the address (email_confirmed_at is set). */
  confirmed: boolean;
}

const PARTNER_COLUMNS = 'id, email, business_name, password_hash, email_confirmed_at is not null as confirmed';

export async function partnerRow(orm: Orm, partnerId: string): Promise<PartnerRow | undefined> {
  const [row] = await rows<PartnerRow>(orm, `select ${PARTNER_COLUMNS} from partners where id = ?`, [partnerId]);
  return row;
}

/** The partner an address belongs to, however its letters are cased (as the unique index reads it). */
export async function partnerByEmail(orm: Orm, email: string): Promise<PartnerRow | undefined> {
  const [row] = await rows<PartnerRow>(orm, `select ${PARTNER_COLUMNS} from partners where lower(email) = lower(?)`, [email]);
  return row;
}

export function partnersWithEmailStarting(orm: Orm, prefix: string): Promise<PartnerRow[]> {
  return rows(orm, `select ${PARTNER_COLUMNS} from partners where email like (? || '%') order by created_at`, [prefix]);
}

/** Partners and riders whose name is longer than `length` characters, by id. */
export async function namesLongerThan(orm: Orm, length: number): Promise<{ partners: string[]; riders: string[] }> {
  const [partners, riders] = await Promise.all([
    rows<{ id: string }>(orm, 'select id from partners where length(business_name) > ?', [length]),
    rows<{ id: string }>(orm, 'select id from riders where length(name) > ?', [length]),
  ]);
  return { partners: partners.map((p) => p.id), riders: riders.map((r) => r.id) };
}

/** An API key's row as stored, with whether it is revoked. */
export interface ApiKeyRow {
  id: string;
  partner_id: string;
  mode: string;
  label: string;
  prefix: string;
  key_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked: boolean;
}

/** A partner's API keys, revoked ones included, oldest first; `mode` keeps one mode's. */
export function apiKeysOf(orm: Orm, partnerId: string, mode?: 'live' | 'test'): Promise<ApiKeyRow[]> {
  return rows(
    orm,
    `select *, revoked_at is not null as revoked from api_keys where partner_id = ?${mode ? ' and mode = ?' : ''} order by created_at, id`,
    mode ? [partnerId, mode] : [partnerId],
  );
}

/**
 * A working key stored for a partner whose address is not confirmed yet. The service makes no
 * such key (a key needs a confirmed address), so it stands for one held from before: what a
 * confirmation of a contested address must revoke. Its id and its secret, as the API takes it.
 */
export async function keyOfUnconfirmedPartner(orm: Orm, partnerId: string, mode: KeyMode): Promise<{ keyId: string; apiKey: string }> {
  const apiKey = generateSecret(mode, 'sk');
  const keyId = randomUUID();
  await write(orm, 'insert into api_keys (id, partner_id, mode, label, prefix, key_hash) values (?, ?, ?, ?, ?, ?)', [
    keyId,
    partnerId,
    mode,
    `Old ${mode} key`,
    displayPrefix(apiKey),
    hashSecret(apiKey),
  ]);
  return { keyId, apiKey };
}

export async function apiKeyRow(orm: Orm, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await rows<ApiKeyRow>(orm, 'select *, revoked_at is not null as revoked from api_keys where id = ?', [keyId]);
  return row;
}

export interface EmailTokenRow {
  token_hash: string;
  purpose: string;
  expires_at: Date;
  used_at: Date | null;
}

/** The email links (confirmation, reset) of the partner an address belongs to, as stored. */
export function emailTokensOf(orm: Orm, email: string): Promise<EmailTokenRow[]> {
  return rows(
    orm,
    'select t.token_hash, t.purpose, t.expires_at, t.used_at from email_tokens t join partners p on p.id = t.partner_id where lower(p.email) = lower(?) order by t.created_at',
    [email],
  );
}

/** The email links stored under `tokenHash` (the primary key: none or one). */
export function emailTokensHashed(orm: Orm, tokenHash: string): Promise<EmailTokenRow[]> {
  return rows(orm, 'select token_hash, purpose, expires_at, used_at from email_tokens where token_hash = ?', [tokenHash]);
}

/** Makes every email link of the partner an address belongs to as old as expired `age` ago. */
export function expireEmailTokensOf(orm: Orm, email: string, age: Age): Promise<void> {
  const when = ago(age);
  return write(orm, `update email_tokens set expires_at = ${when.sql} where partner_id = (select id from partners where lower(email) = lower(?))`, [
    ...when.params,
    email,
  ]);
}

/** Makes the email link stored under `tokenHash` expired `age` ago. */
export function expireEmailToken(orm: Orm, tokenHash: string, age: Age): Promise<void> {
  const when = ago(age);
  return write(orm, `update email_tokens set expires_at = ${when.sql} where token_hash = ?`, [...when.params, tokenHash]);
}

/** The partner a dashboard session is logged in as, or undefined for no such session. */
export async function dashboardSessionPartner(orm: Orm, sid: string): Promise<string | null | undefined> {
  const [row] = await rows<{ partner: string | null }>(orm, "select sess->>'partnerId' as partner from dashboard_sessions where sid = ?", [sid]);
  return row?.partner;
}
