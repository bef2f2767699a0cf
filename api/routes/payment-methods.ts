import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { PaymentMethodSchema, type PaymentMethod } from '../../db/entities';
import { isoZ } from '../../domain/delivery-view';
import { isGhanaPhone } from '../../domain/phone';
import type { AppDeps } from '../deps';
import { ApiError, requireUuid } from '../errors';
import { idempotent } from '../middleware/idempotency';
import { partnerOf } from '../middleware/partner-auth';
import type { PaymentMethodRequest } from '../openapi/schemas';

/** The Mobile Money account resource; no provider-internal data ever leaves. */
export function paymentMethodView(account: PaymentMethod) {
  return {
    id: account.id,
    provider: account.provider,
    phone: account.phone,
    account_name: account.accountName,
    is_default: account.isDefault,
    created_at: isoZ(account.createdAt),
  };
}

export function createPaymentMethodsRouter(deps: AppDeps): Router {
  const { orm, gateways } = deps;
  const router = Router();

  router.get('/partner/payment-methods', async (_req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const accounts = await orm.em
      .fork()
      .find(PaymentMethodSchema, { partnerId, mode, deletedAt: null }, { orderBy: { isDefault: 'desc', createdAt: 'asc', id: 'asc' } });
    res.json(accounts.map(paymentMethodView));
  });

  router.post('/partner/payment-methods', idempotent(deps, 'payment-methods'), async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const body = req.body as PaymentMethodRequest;
    if (!isGhanaPhone(body.phone)) throw ApiError.badRequest('The request is not valid', { phone: 'is not a valid Ghana phone number' });

    // The network is asked before anything is saved.
    const resolved = await gateways[mode].resolve(body.provider, body.phone);
    if (!resolved.exists) {
      throw ApiError.badRequest('This number has no Mobile Money account', { phone: 'does not exist on any network' });
    }
    if (resolved.provider !== body.provider) {
      throw ApiError.badRequest(`This number belongs to ${resolved.provider}, not ${body.provider}`, {
        provider: `the number is on ${resolved.provider}`,
      });
    }

    const account = await orm.em.fork().transactional(async (em) => {
      // Serialise registrations of one partner so "the first account is the default" holds under races.
      await em.execute('select id from partners where id = ? for update', [partnerId]);
      const [{ count }] = (await em.execute<{ count: string }[]>(
        'select count(*) as count from payment_methods where partner_id = ? and mode = ? and deleted_at is null',
        [partnerId, mode],
      )) as [{ count: string }];
      const isDefault = Number(count) === 0 || body.is_default === true;
      if (isDefault) {
        await em.execute(
          'update payment_methods set is_default = false where partner_id = ? and mode = ? and is_default and deleted_at is null',
          [partnerId, mode],
        );
      }
      const id = randomUUID();
      await em.execute(
        `insert into payment_methods (id, partner_id, mode, provider, phone, account_name, is_default)
         values (?, ?, ?, ?, ?, ?, ?)`,
        [id, partnerId, mode, body.provider, body.phone, resolved.accountName ?? body.account_name, isDefault],
      );
      return em.findOneOrFail(PaymentMethodSchema, { id });
    });
    res.status(201).json(paymentMethodView(account));
  });

  router.delete('/partner/payment-methods/:id', async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const id = requireUuid(req.params.id, 'Unknown payment method');
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
        // The oldest remaining account takes over as default (DESIGN section 9).
        await em.execute(
          `update payment_methods set is_default = true where id = (
             select id from payment_methods where partner_id = ? and mode = ? and deleted_at is null
             order by created_at asc, id asc limit 1)`,
          [partnerId, mode],
        );
      }
    });
    res.json({ id, deleted: true });
  });

  return router;
}
