import { Router } from 'express';
import * as dashboardReads from '../../../db/dashboard-reads';
import * as webhookEndpoints from '../../../db/webhook-endpoints';
import * as webhookEvents from '../../../db/webhook-events';
import type { KeyMode } from '../../../domain/api-key';
import type { AppDeps } from '../../app-deps';
import { ApiError, requireUuid } from '../../api-error';
import { LIMITS } from '../../../domain/limits';
import { loadWebhookDeliveries } from '../../partner/webhook-log-view';
import { BODY_REMOVED, sendTestEvent, setWebhookUrl, startWebhookSend } from '../../partner/webhook-settings';
import { PAGE_SIZE, webhookPage } from '../../../web/dashboard/webhook-page';
import { redeliveryLimit, webhookTestLimit } from '../../middleware/rate-limit';
import { dashboardLimit } from '../form-rate-limit';
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
  const back = { href: '/dashboard/webhook', label: 'Back to the webhook' };
  const tests = dashboardLimit(webhookTestLimit(deps), 'test webhooks', back);
  // Shared with the API's redeliver: one budget per partner.
  const redeliveries = dashboardLimit(redeliveryLimit(deps), 'redeliveries', back);

  async function pageData(partnerId: string, mode: KeyMode, offset: number) {
    const em = orm.em.fork();
    const url = await webhookEndpoints.findUrl(em, { partnerId, mode });
    const events = await webhookEvents.listFor(em, { partnerId, mode }, { limit: PAGE_SIZE + 1, offset });
    const callbacks = await loadWebhookDeliveries(em, events.slice(0, PAGE_SIZE));
    const deliveryIds = [...new Set(callbacks.map((c) => c.delivery_id).filter((id): id is string => id !== null))];
    const references = await dashboardReads.deliveryReferences(em, deliveryIds);
    return { url, callbacks, references, offset, hasMore: events.length > PAGE_SIZE };
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

  router.post('/webhook/test', tests, async (req, res) => {
    const ctx = pageOf(res);
    const { url } = await pageData(ctx.viewer!.partnerId, ctx.mode, 0);
    if (!url) return redirectWith(req, res, '/dashboard/webhook', 'error', 'Set a callback URL before sending a test event.');
    await sendTestEvent(deps, { partnerId: ctx.viewer!.partnerId, mode: ctx.mode });
    await redirectWith(req, res, '/dashboard/webhook', 'ok', 'Test event sent. Refresh in a few seconds to see how your server answered.');
  });

  router.post('/webhook/events/:id/redeliver', redeliveries);
  router.post('/webhook/events/:id/redeliver', async (req, res) => {
    const ctx = pageOf(res);
    const id = requireUuid(req.params.id, 'Unknown callback');
    const event = await webhookEvents.findFor(orm.em.fork(), { partnerId: ctx.viewer!.partnerId, mode: ctx.mode }, id);
    if (!event) throw ApiError.notFound('Unknown callback');
    const back = safeDashboardPath(req.body?.back, '/dashboard/webhook');
    if (event.body_removed) return redirectWith(req, res, back, 'error', `${BODY_REMOVED}.`);
    await startWebhookSend(deps, id, event.state, ctx.mode);
    await redirectWith(req, res, back, 'ok', 'Sending the callback again. Refresh in a few seconds to see the new attempt.');
  });

  return router;
}
