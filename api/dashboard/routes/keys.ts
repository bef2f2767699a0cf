import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createApiKey, revokeApiKey } from '../../../db/accounts';
import type { KeyMode } from '../../../domain/api-key';
import { ApiError, requireUuid } from '../../errors';
import { LIMITS } from '../../openapi/schemas';
import type { FieldErrors } from '../../../web/dashboard/forms';
import { keysPage, type KeyRow } from '../../../web/dashboard/keys';
import { characters, formValues, pageOf, redirectWith, render, saveSession } from '../respond';

/** Creating (secret shown once), listing and revoking API keys. */
export function createKeyRoutes(orm: MikroORM): Router {
  const router = Router();

  const keysOf = (partnerId: string, mode: KeyMode) =>
    orm.em.fork().execute<KeyRow[]>(
      `select id, label, mode, prefix, created_at, last_used_at, revoked_at from api_keys
       where partner_id = ? and mode = ? order by revoked_at is not null, created_at desc`,
      [partnerId, mode],
    );

  router.get('/keys', async (_req, res) => {
    const ctx = pageOf(res);
    render(res, keysPage(ctx, await keysOf(ctx.viewer!.partnerId, ctx.mode)));
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
    const created = await createApiKey(orm.em.fork(), { partnerId: ctx.viewer!.partnerId, label: values.label, mode });
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
    const revoked = await revokeApiKey(orm.em.fork(), ctx.viewer!.partnerId, id);
    if (!revoked) throw ApiError.notFound('Unknown key');
    await redirectWith(req, res, '/dashboard/keys', 'ok', 'Key revoked. Requests that use it are refused from now on.');
  });

  return router;
}
