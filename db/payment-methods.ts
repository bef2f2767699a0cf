import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyMode } from '../domain/api-key';
import type { MobileMoneyProvider } from '../integrations/mobile-money/gateway';
import { PaymentMethodSchema, type PaymentMethod } from './entities';
import { poolQuery, type PoolQuery } from './pool-query';

/**
 * Partners' Mobile Money accounts, per mode. Removal is soft (bookings keep pointing at the
 * account), and at most one of a partner's accounts in a mode is the default. Every change
 * first locks the partner's row, so changes of one partner's accounts are taken one at a time.
 */

export interface AccountOwner {
  partnerId: string;
  mode: KeyMode;
}

/** The partner's accounts in this mode, the default first, then oldest first. */
export function listFor(em: EntityManager, { partnerId, mode }: AccountOwner): Promise<PaymentMethod[]> {
  return em.find(PaymentMethodSchema, { partnerId, mode, deletedAt: null }, { orderBy: { isDefault: 'desc', createdAt: 'asc', id: 'asc' } });
}

/** The account, removed or not; null when there is no such account. */
export function find(em: EntityManager, id: string): Promise<PaymentMethod | null> {
  return em.findOne(PaymentMethodSchema, { id });
}

/** The account, removed or not; MikroORM's NotFoundError when there is none. */
export function get(em: EntityManager, id: string): Promise<PaymentMethod> {
  return em.findOneOrFail(PaymentMethodSchema, { id });
}

/** The account a booking is debited from, named or the default; prepared, as every booking asks. */
const ACCOUNT_SQL = 'select id from payment_methods where partner_id = $1 and mode = $2 and deleted_at is null';
const NAMED_ACCOUNT = { name: 'booking-named-account', text: `${ACCOUNT_SQL} and id = $3` };
const DEFAULT_ACCOUNT = { name: 'booking-default-account', text: `${ACCOUNT_SQL} and is_default` };

/**
 * The id of the account to debit: the one named (if it is the partner's and not removed), else
 * the partner's default in this mode; null when there is none.
 */
export async function accountToDebit(em: EntityManager, { partnerId, mode }: AccountOwner, paymentMethodId: string | undefined): Promise<string | null> {
  const {
    rows: [account],
  } = await poolQuery(em).query<{ id: string }>(
    paymentMethodId ? { ...NAMED_ACCOUNT, values: [partnerId, mode, paymentMethodId] } : { ...DEFAULT_ACCOUNT, values: [partnerId, mode] },
  );
  return account?.id ?? null;
}

/**
 * Adds an account in the caller's transaction (`tx`). The partner's first account in a mode is
 * the default whatever was asked; one asked to be the default takes over from the previous one.
 */
export async function insert(
  tx: PoolQuery,
  { partnerId, mode }: AccountOwner,
  account: { id: string; provider: MobileMoneyProvider; phone: string; accountName: string; isDefault: boolean },
): Promise<void> {
  // Serialise registrations of one partner so "the first account is the default" holds under races.
  await tx.query('select id from partners where id = $1 for update', [partnerId]);
  const { rows } = await tx.query<{ count: string }>(
    'select count(*) as count from payment_methods where partner_id = $1 and mode = $2 and deleted_at is null',
    [partnerId, mode],
  );
  const isDefault = Number(rows[0]?.count) === 0 || account.isDefault;
  if (isDefault) {
    await tx.query('update payment_methods set is_default = false where partner_id = $1 and mode = $2 and is_default and deleted_at is null', [
      partnerId,
      mode,
    ]);
  }
  await tx.query(
    `insert into payment_methods (id, partner_id, mode, provider, phone, account_name, is_default)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [account.id, partnerId, mode, account.provider, account.phone, account.accountName, isDefault],
  );
}

/**
 * Soft removal; when the default goes, the oldest remaining account takes over (DESIGN section 9).
 * False when the partner has no such account in this mode (nothing is changed then).
 */
export async function remove(em: EntityManager, { partnerId, mode }: AccountOwner, id: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    await tx.execute('select id from partners where id = ? for update', [partnerId]);
    const [removed] = await tx.execute<{ is_default: boolean }[]>(
      `update payment_methods set deleted_at = now(), is_default = false
       where id = ? and partner_id = ? and mode = ? and deleted_at is null
       returning (select is_default from payment_methods where id = ?) as is_default`,
      [id, partnerId, mode, id],
    );
    if (!removed) return false;
    if (removed.is_default) {
      await tx.execute(
        `update payment_methods set is_default = true where id = (
           select id from payment_methods where partner_id = ? and mode = ? and deleted_at is null
           order by created_at asc, id asc limit 1)`,
        [partnerId, mode],
      );
    }
    return true;
  });
}

/** Makes one account the default. False when the partner has no such account in this mode. */
export async function setDefault(em: EntityManager, { partnerId, mode }: AccountOwner, id: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    await tx.execute('select id from partners where id = ? for update', [partnerId]);
    const [target] = await tx.execute<{ id: string }[]>(
      'select id from payment_methods where id = ? and partner_id = ? and mode = ? and deleted_at is null',
      [id, partnerId, mode],
    );
    if (!target) return false;
    // Clear first: the partial unique index allows one default per partner and mode at any instant.
    await tx.execute('update payment_methods set is_default = false where partner_id = ? and mode = ? and is_default and deleted_at is null', [
      partnerId,
      mode,
    ]);
    await tx.execute('update payment_methods set is_default = true where id = ?', [id]);
    return true;
  });
}
