import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { PaymentMethodSchema, type PaymentMethod } from '../../db/entities';
import { readBackCommitted, transactionOrFound } from '../../db/lost-commit';
import type { KeyMode } from '../../domain/api-key';
import { GatewayUnavailableError, type MobileMoneyGateway, type MobileMoneyProvider } from '../../integrations/mobile-money/gateway';
import { ApiError } from '../errors';
import { bindClaimedKey, type IdempotencyClaim } from '../middleware/idempotency';
import { isKnownGhanaNumber } from '../openapi/formats';

/**
 * Mobile Money accounts of one partner in one mode, shared by the partner API and the dashboard
 * so both apply the same name check and the same default rules.
 */
export interface AccountOwner {
  partnerId: string;
  mode: KeyMode;
}

export interface NewAccount {
  provider: MobileMoneyProvider;
  phone: string;
  account_name: string;
  is_default?: boolean;
}

export function listPaymentMethods(orm: MikroORM, { partnerId, mode }: AccountOwner): Promise<PaymentMethod[]> {
  return orm.em
    .fork()
    .find(PaymentMethodSchema, { partnerId, mode, deletedAt: null }, { orderBy: { isDefault: 'desc', createdAt: 'asc', id: 'asc' } });
}

async function resolveNumber(gateway: MobileMoneyGateway, body: NewAccount) {
  try {
    return await gateway.resolve(body.provider, body.phone);
  } catch (error) {
    // The network could not be asked, so nothing is known about the number: the caller may try again.
    if (error instanceof GatewayUnavailableError) throw ApiError.unavailable('The mobile network did not answer; try again shortly');
    throw error;
  }
}

/**
 * Asks the network about the number before anything is saved (contract "Register a Mobile Money
 * account"). The `Idempotency-Key` claim, if any, is bound to the account in the same transaction.
 */
export async function registerPaymentMethod(
  orm: MikroORM,
  gateway: MobileMoneyGateway,
  { partnerId, mode }: AccountOwner,
  body: NewAccount,
  claim?: IdempotencyClaim,
): Promise<PaymentMethod> {
  // The dashboard's form comes here without the API's validator: the same check of the number.
  if (!isKnownGhanaNumber(body.phone)) {
    throw ApiError.badRequest('The request is not valid', { phone: 'is not a valid Ghana phone number' });
  }

  const resolved = await resolveNumber(gateway, body);
  if (!resolved.exists) {
    throw ApiError.badRequest('This number has no Mobile Money account', { phone: 'does not exist on any network' });
  }
  if (resolved.provider !== body.provider) {
    throw ApiError.badRequest(`This number belongs to ${resolved.provider}, not ${body.provider}`, {
      provider: `the number is on ${resolved.provider}`,
    });
  }

  const id = randomUUID();
  const saved = async () => ((await orm.em.fork().findOne(PaymentMethodSchema, { id })) ? id : null);
  await transactionOrFound(
    orm.em,
    async (tx) => {
      // Serialise registrations of one partner so "the first account is the default" holds under races.
      await tx.query('select id from partners where id = $1 for update', [partnerId]);
      const { rows } = await tx.query<{ count: string }>(
        'select count(*) as count from payment_methods where partner_id = $1 and mode = $2 and deleted_at is null',
        [partnerId, mode],
      );
      const isDefault = Number(rows[0]?.count) === 0 || body.is_default === true;
      if (isDefault) {
        await tx.query(
          'update payment_methods set is_default = false where partner_id = $1 and mode = $2 and is_default and deleted_at is null',
          [partnerId, mode],
        );
      }
      await tx.query(
        `insert into payment_methods (id, partner_id, mode, provider, phone, account_name, is_default)
         values ($1, $2, $3, $4, $5, $6, $7)`,
        [id, partnerId, mode, body.provider, body.phone, resolved.accountName ?? body.account_name, isDefault],
      );
      if (claim) await bindClaimedKey(tx, claim, id);
      return id;
    },
    saved,
  );
  return readBackCommitted(() => orm.em.fork().findOneOrFail(PaymentMethodSchema, { id }));
}

/** Soft removal; when the default goes, the oldest remaining account takes over (DESIGN section 9). */
export async function removePaymentMethod(orm: MikroORM, { partnerId, mode }: AccountOwner, id: string): Promise<void> {
  await orm.em.fork().transactional(async (em) => {
    await em.execute('select id from partners where id = ? for update', [partnerId]);
    const [removed] = await em.execute<{ is_default: boolean }[]>(
      `update payment_methods set deleted_at = now(), is_default = false
       where id = ? and partner_id = ? and mode = ? and deleted_at is null
       returning (select is_default from payment_methods where id = ?) as is_default`,
      [id, partnerId, mode, id],
    );
    if (!removed) throw ApiError.notFound('Unknown payment method');
    if (removed.is_default) {
      await em.execute(
        `update payment_methods set is_default = true where id = (
           select id from payment_methods where partner_id = ? and mode = ? and deleted_at is null
           order by created_at asc, id asc limit 1)`,
        [partnerId, mode],
      );
    }
  });
}

/** Makes one account the default, the one debited when a booking names none. */
export async function setDefaultPaymentMethod(orm: MikroORM, { partnerId, mode }: AccountOwner, id: string): Promise<void> {
  await orm.em.fork().transactional(async (em) => {
    await em.execute('select id from partners where id = ? for update', [partnerId]);
    const [target] = await em.execute<{ id: string }[]>(
      'select id from payment_methods where id = ? and partner_id = ? and mode = ? and deleted_at is null',
      [id, partnerId, mode],
    );
    if (!target) throw ApiError.notFound('Unknown payment method');
    // Clear first: the partial unique index allows one default per partner and mode at any instant.
    await em.execute(
      'update payment_methods set is_default = false where partner_id = ? and mode = ? and is_default and deleted_at is null',
      [partnerId, mode],
    );
    await em.execute('update payment_methods set is_default = true where id = ?', [id]);
  });
}
