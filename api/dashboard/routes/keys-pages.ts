import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import * as accounts from '../../../db/accounts';
import type { KeyMode } from '../../../domain/api-key';
import { ApiError, requireUuid } from '../../api-error';
import { LIMITS } from '../../../domain/limits';
import type { FieldErrors } from '../../../web/dashboard/forms';
import { keyReviewPage, keysPage } from '../../../web/dashboard/keys-page';
import { characters, formValues, pageOf, redirectWith, render, safeDashboardPath, saveSession } from '../respond';

/** Creating (secret shown once), listing and revoking API keys, and the review of them all after a reset. */
export function createKeyRoutes(orm: MikroORM, maxActive: number): Router {
  const router = Router();

  const keysOf = (partnerId: string, mode: KeyMode) => accounts.listApiKeys(orm.em.fork(), partnerId, mode);

  router.get('/keys', async (_req, res) => {
    const ctx = pageOf(res);
    render(res, keysPage(ctx, await keysOf(ctx.viewer!.partnerId, ctx.mode)));
  });

  router.get('/keys/review', async (_req, res) => {
    const ctx = pageOf(res);
    render(res, keyReviewPage(ctx, await accounts.listEveryApiKey(orm.em.fork(), ctx.viewer!.partnerId)));
  });

  router.post('/keys', async (req, res) => {
    const ctx = pageOf(res);
    const values = formValues(req, ['label', 'mode'] as const);
    const errors: FieldErrors = {};
    if (!values.label) errors.label = 'Give the key a label';
    else if (characters(values.label) > LIMITS.label) errors.label = `Use at most ${LIMITS.label} characters`;
    if (values.mode !== 'live' && values.mode !== 'test') errors.mode = 'Choose test or live';
    if (!ctx.viewer!.confirmed) errors.label = 'Confirm your email address before creating a key';
    if (Object.keys(errors).length) {
      return render(res, keysPage(ctx, await keysOf(ctx.viewer!.partnerId, ctx.mode), { values, errors }), 400);
    }
    const mode = values.mode as KeyMode;
    let created: Awaited<ReturnType<typeof accounts.createApiKey>>;
    try {
      created = await accounts.createApiKey(orm.em.fork(), { partnerId: ctx.viewer!.partnerId, label: values.label, mode, maxActive });
    } catch (error) {
      if (!(error instanceof accounts.ApiKeyLimitReached)) throw error;
      // 409, not 429: waiting does not help, revoking a key does.
      const limitErrors = { label: `You already have ${maxActive} active keys (test and live together). Revoke one you no longer use, then create the new one.` };
      return render(res, keysPage(ctx, await keysOf(ctx.viewer!.partnerId, ctx.mode), { values, errors: limitErrors }), 409);
    }
    // Show the new key among its own kind.
    req.session.mode = mode;
    ctx.mode = mode;
    await saveSession(req);
    // Rendered in this answer and never stored in the clear, not even in the session.
    render(res, keysPage(ctx, await keysOf(ctx.viewer!.partnerId, mode), { created: { label: values.label, mode, secret: created.apiKey } }), 201);
  });

  router.post('/keys/:id/revoke', async (req, res) => {
    const ctx = pageOf(res);
    const id = requireUuid(req.params.id, 'Unknown key');
    const revoked = await accounts.revokeApiKey(orm.em.fork(), ctx.viewer!.partnerId, id);
    if (!revoked) throw ApiError.notFound('Unknown key');
    await redirectWith(req, res, safeDashboardPath(req.body?.back, '/dashboard/keys'), 'ok', 'Key revoked. Requests that use it are refused from now on.');
  });

  return router;
}
