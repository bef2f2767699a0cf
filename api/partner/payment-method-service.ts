import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { PaymentMethod } from '../../db/entities';
import { readBackCommitted, transactionOrFound } from '../../db/lost-commit';
import * as paymentMethods from '../../db/payment-methods';
import type { AccountOwner } from '../../db/payment-methods';
import { GatewayUnavailableError, type MobileMoneyGateway, type MobileMoneyProvider } from '../../integrations/mobile-money/gateway';
import { ApiError } from '../api-error';
import { bindClaimedKey, type IdempotencyClaim } from './idempotent-requests';
import { isKnownGhanaNumber } from '../openapi/formats';

/**
 * Mobile Money accounts of one partner in one mode, shared by the partner API and the dashboard
 * so both apply the same name check and the same default rules.
 */

export interface NewAccount {
  provider: MobileMoneyProvider;
  phone: string;
  account_name: string;
  is_default?: boolean;
}

export function listPaymentMethods(orm: MikroORM, owner: AccountOwner): Promise<PaymentMethod[]> {
  return paymentMethods.listFor(orm.em.fork(), owner);
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
  owner: AccountOwner,
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
  const saved = async () => ((await paymentMethods.find(orm.em.fork(), id)) ? id : null);
  await transactionOrFound(
    orm.em,
    async (tx) => {
      await paymentMethods.insert(tx, owner, {
        id,
        provider: body.provider,
        phone: body.phone,
        accountName: resolved.accountName ?? body.account_name,
        isDefault: body.is_default === true,
      });
      if (claim) await bindClaimedKey(tx, claim, id);
      return id;
    },
    saved,
  );
  return readBackCommitted(() => paymentMethods.get(orm.em.fork(), id));
}

/** Soft removal; when the default goes, the oldest remaining account takes over (DESIGN section 9). */
export async function removePaymentMethod(orm: MikroORM, owner: AccountOwner, id: string): Promise<void> {
  if (!(await paymentMethods.remove(orm.em.fork(), owner, id))) throw ApiError.notFound('Unknown payment method');
}

/** Makes one account the default, the one debited when a booking names none. */
export async function setDefaultPaymentMethod(orm: MikroORM, owner: AccountOwner, id: string): Promise<void> {
  if (!(await paymentMethods.setDefault(orm.em.fork(), owner, id))) throw ApiError.notFound('Unknown payment method');
}
