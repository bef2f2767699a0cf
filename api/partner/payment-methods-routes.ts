import { Router } from 'express';
import type { PaymentMethod } from '../../db/entities';
import * as paymentMethods from '../../db/payment-methods';
import { isoZ } from '../../domain/delivery-view';
import type { AppDeps } from '../app-deps';
import { requireUuid } from '../api-error';
import { idempotencyClaimOf, idempotent } from './idempotent-requests';
import { partnerOf } from '../middleware/partner-auth';
import { paymentMethodChangeLimit } from '../middleware/rate-limit';
import { storableText } from './storable-text';
import type { PaymentMethodRequest } from '../openapi/schemas';
import { listPaymentMethods, registerPaymentMethod, removePaymentMethod } from './payment-method-service';

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
  // Counted before the idempotency check: a retried registration spends the budget again.
  const changes = paymentMethodChangeLimit(deps);

  router.get('/partner/payment-methods', async (_req, res) => {
    res.json((await listPaymentMethods(orm, partnerOf(res))).map(paymentMethodView));
  });

  // A repeat of a registration whose answer was lost is answered with the account it saved.
  const answerWithAccount = async (id: string) => {
    const account = await paymentMethods.find(orm.em.fork(), id);
    return account ? { status: 201, body: paymentMethodView(account) } : undefined;
  };
  router.post('/partner/payment-methods', changes, storableText, idempotent(deps, 'payment-methods', { answerFromResource: answerWithAccount }), async (req, res) => {
    const auth = partnerOf(res);
    const account = await registerPaymentMethod(orm, gateways[auth.mode], auth, req.body as PaymentMethodRequest, idempotencyClaimOf(res));
    res.status(201).json(paymentMethodView(account));
  });

  router.delete('/partner/payment-methods/:id', changes);
  router.delete('/partner/payment-methods/:id', async (req, res) => {
    const id = requireUuid(req.params.id, 'Unknown payment method');
    await removePaymentMethod(orm, partnerOf(res), id);
    res.json({ id, deleted: true });
  });

  return router;
}
