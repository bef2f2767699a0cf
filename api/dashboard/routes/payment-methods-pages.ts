import { Router } from 'express';
import { normaliseGhanaPhone } from '../../../domain/phone';
import { PROVIDERS, type MobileMoneyProvider } from '../../../integrations/mobile-money/gateway';
import type { AppDeps } from '../../app-deps';
import { ApiError, requireUuid } from '../../api-error';
import { LIMITS } from '../../../domain/limits';
import { listPaymentMethods, registerPaymentMethod, removePaymentMethod, setDefaultPaymentMethod } from '../../partner/payment-method-service';
import type { FieldErrors } from '../../../web/dashboard/forms';
import { networkName, paymentMethodsPage } from '../../../web/dashboard/payment-methods-page';
import { paymentMethodChangeLimit } from '../../middleware/rate-limit';
import { dashboardLimit } from '../form-rate-limit';
import { characters, formValues, pageOf, redirectWith, render } from '../respond';

/** Mobile Money accounts: register (with the network's name check), make default, remove. */
export function createPaymentMethodRoutes(deps: AppDeps): Router {
  const { orm, gateways } = deps;
  const router = Router();
  // The API's budget: registering here runs the same name check.
  const changes = dashboardLimit(paymentMethodChangeLimit(deps), 'payment method changes', { href: '/dashboard/payment-methods', label: 'Back to payment methods' });

  router.get('/payment-methods', async (_req, res) => {
    const ctx = pageOf(res);
    render(res, paymentMethodsPage(ctx, await listPaymentMethods(orm, { partnerId: ctx.viewer!.partnerId, mode: ctx.mode })));
  });

  router.post('/payment-methods', changes, async (req, res) => {
    const ctx = pageOf(res);
    const owner = { partnerId: ctx.viewer!.partnerId, mode: ctx.mode };
    const values = formValues(req, ['provider', 'phone', 'account_name', 'is_default'] as const);
    const errors: FieldErrors = {};
    if (!(PROVIDERS as readonly string[]).includes(values.provider)) errors.provider = 'Choose the network of the number';
    if (!values.phone) errors.phone = 'Enter the Mobile Money number';
    if (!values.account_name) errors.account_name = 'Enter the name the account is held under';
    else if (characters(values.account_name) > LIMITS.name) errors.account_name = `Use at most ${LIMITS.name} characters`;
    if (!Object.keys(errors).length) {
      try {
        const account = await registerPaymentMethod(orm, gateways[ctx.mode], owner, {
          provider: values.provider as MobileMoneyProvider,
          phone: normaliseGhanaPhone(values.phone),
          account_name: values.account_name,
          is_default: values.is_default === 'true',
        });
        const named = account.accountName !== values.account_name ? ` under the name the network holds, “${account.accountName}”` : '';
        return redirectWith(req, res, '/dashboard/payment-methods', 'ok', `${account.phone} is registered${named}.`);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 400) throw error;
        const details = error.details as Record<string, string>;
        if (details.phone) {
          errors.phone =
            details.phone === 'does not exist on any network'
              ? 'This number has no Mobile Money account'
              : 'Enter a Ghana mobile number like +233241234567 or 024 123 4567';
        }
        if (details.provider) {
          const network = /network_[abc]/.exec(details.provider)?.[0];
          errors.provider = network ? `This number is on ${networkName(network)}; choose that network` : `The network ${details.provider}`;
        }
        if (!details.phone && !details.provider) errors.phone = error.message;
      }
    }
    const accounts = await listPaymentMethods(orm, owner);
    render(res, paymentMethodsPage(ctx, accounts, { values, errors }), 400);
  });

  router.post('/payment-methods/:id/default', async (req, res) => {
    const ctx = pageOf(res);
    await setDefaultPaymentMethod(orm, { partnerId: ctx.viewer!.partnerId, mode: ctx.mode }, requireUuid(req.params.id, 'Unknown account'));
    await redirectWith(req, res, '/dashboard/payment-methods', 'ok', 'Default account changed. Bookings that name no account are paid from it.');
  });

  router.post('/payment-methods/:id/remove', changes);
  router.post('/payment-methods/:id/remove', async (req, res) => {
    const ctx = pageOf(res);
    await removePaymentMethod(orm, { partnerId: ctx.viewer!.partnerId, mode: ctx.mode }, requireUuid(req.params.id, 'Unknown account'));
    await redirectWith(req, res, '/dashboard/payment-methods', 'ok', 'Account removed. Bookings already made are not affected.');
  });

  return router;
}
