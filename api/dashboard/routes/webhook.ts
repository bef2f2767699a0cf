import { Router } from 'express';
import type { AppDeps } from '../../deps';
import { ApiError, requireUuid } from '../../errors';
import { LIMITS } from '../../openapi/schemas';
import { loadWebhookDeliveries, type WebhookEventRow } from '../../services/webhook-log';
import { sendTestEvent, setWebhookUrl, startWebhookSend } from '../../services/webhook-settings';
import { PAGE_SIZE, webhookPage } from '../../../web/dashboard/webhook';
import { characters, formValues, pageOf, pageOffset, redirectWith, render, safeDashboardPath } from '../respond';

/** The URL check's findings, said as what to do about them. */
export function urlProblem(detail: unknown, fallback: string): string {
  const text = typeof detail === 'string' ? detail : '';
  if (text === 'is not a valid URL') return 'Enter the full address, starting with https://';
  if (text === 'must use https') return 'Use an address that starts with https://';
  if (text === 'must not contain a user or password') return 'Take the user name and password out of the address';
  if (text === 'the host name does not resolve') return 'We cannot find this host name; check it for typing mistakes';
  const range = /^resolves to \S+ \((.+)\), which is not allowed$/.exec(text)?.[1];
  if (range) return `This address leads to ${/^[aeiou]/.test(range) ? 'an' : 'a'} ${range} network address, which we cannot call; use a public address`;
  return text ? `The address ${text}` : fallback;
}

/** Callback URL, its secret (shown once), a test event, and the log of every attempt. */
export function createWebhookRoutes(deps: AppDeps): Router {
  const { orm } = deps;
  const router = Router();

  async function pageData(partnerId: string, mode: string, offset: number) {
    const em = orm.em.fork();
    const [endpoint] = await em.execute<{ url: string | null }[]>('select url from webhook_endpoints where partner_id = ? and mode = ?', [
      partnerId,
      mode,
    ]);
    const events = await em.execute<WebhookEventRow[]>(
      `select id, event, delivery_id, state, created_at from webhook_events where partner_id = ? and mode = ?
       order by created_at desc, id desc limit ? offset ?`,
      [partnerId, mode, PAGE_SIZE + 1, offset],
    );
    const callbacks = await loadWebhookDeliveries(em, events.slice(0, PAGE_SIZE));
    const deliveryIds = [...new Set(callbacks.map((c) => c.delivery_id).filter((id): id is string => id !== null))];
    const references = new Map(
      deliveryIds.length
        ? (await em.execute<{ id: string; reference: string }[]>(`select id, reference from deliveries where id in (${deliveryIds.map(() => '?').join(', ')})`, deliveryIds)).map(
            (r) => [r.id, r.reference] as const,
          )
        : [],
    );
    return { url: endpoint?.url ?? null, callbacks, references, offset, hasMore: events.length > PAGE_SIZE };
  }

  router.get('/webhook', async (req, res) => {
    const ctx = pageOf(res);
    const offset = pageOffset(req.query.offset);
    render(res, webhookPage(ctx, await pageData(ctx.viewer!.partnerId, ctx.mode, offset)));
  });

  router.post('/webhook', async (req, res) => {
    const ctx = pageOf(res);
    const owner = { partnerId: ctx.viewer!.partnerId, mode: ctx.mode };
    const values = formValues(req, ['webhook_url'] as const);
    let errorText = values.webhook_url ? '' : 'Enter the URL that should receive callbacks';
    if (characters(values.webhook_url) > LIMITS.webhookUrl) errorText = `Use at most ${LIMITS.webhookUrl} characters`;
    if (!errorText) {
      try {
        const { secret } = await setWebhookUrl(deps, owner, values.webhook_url);
        return render(res, webhookPage(ctx, { ...(await pageData(owner.partnerId, owner.mode, 0)), newSecret: secret ?? undefined }));
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 400) throw error;
        errorText = urlProblem(error.details.webhook_url, error.message);
      }
    }
    render(res, webhookPage(ctx, { ...(await pageData(owner.partnerId, owner.mode, 0)), values, errors: { webhook_url: errorText } }), 400);
  });

  router.post('/webhook/clear', async (req, res) => {
    const ctx = pageOf(res);
    await setWebhookUrl(deps, { partnerId: ctx.viewer!.partnerId, mode: ctx.mode }, null);
    await redirectWith(req, res, '/dashboard/webhook', 'ok', 'The URL is removed. No callbacks are sent until you set one again.');
  });

  router.post('/webhook/test', async (req, res) => {
    const ctx = pageOf(res);
    const { url } = await pageData(ctx.viewer!.partnerId, ctx.mode, 0);
    if (!url) return redirectWith(req, res, '/dashboard/webhook', 'error', 'Set a callback URL before sending a test event.');
    await sendTestEvent(deps, { partnerId: ctx.viewer!.partnerId, mode: ctx.mode });
    await redirectWith(req, res, '/dashboard/webhook', 'ok', 'Test event sent. Refresh in a few seconds to see how your server answered.');
  });

  router.post('/webhook/events/:id/redeliver', async (req, res) => {
    const ctx = pageOf(res);
    const id = requireUuid(req.params.id, 'Unknown callback');
    const [event] = await orm.em
      .fork()
      .execute<{ state: string }[]>('select state from webhook_events where id = ? and partner_id = ? and mode = ?', [
        id,
        ctx.viewer!.partnerId,
        ctx.mode,
      ]);
    if (!event) throw ApiError.notFound('Unknown callback');
    await startWebhookSend(deps, id, event.state);
    await redirectWith(req, res, safeDashboardPath(req.body?.back, '/dashboard/webhook'), 'ok', 'Sending the callback again. Refresh in a few seconds to see the new attempt.');
  });

  return router;
}
