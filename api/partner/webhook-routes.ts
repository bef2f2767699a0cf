import { Router } from 'express';
import * as webhookEndpoints from '../../db/webhook-endpoints';
import * as webhookEvents from '../../db/webhook-events';
import type { AppDeps } from '../app-deps';
import { ApiError, requireUuid } from '../api-error';
import { partnerOf } from '../middleware/partner-auth';
import { redeliveryLimit } from '../middleware/rate-limit';
import { loadWebhookDeliveries } from './webhook-log-view';
import { BODY_REMOVED, setWebhookUrl, startWebhookSend } from './webhook-settings';

/** Callback URL settings, the callback log and redelivery. */
export function createWebhookRouter(deps: AppDeps): Router {
  const { orm, temporal, settings } = deps;
  const router = Router();

  router.get('/partner/webhook', async (_req, res) => {
    const { partnerId, mode } = partnerOf(res);
    res.json({ webhook_url: await webhookEndpoints.findUrl(orm.em.fork(), { partnerId, mode }) });
  });

  router.put('/partner/webhook', async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const raw = (req.body as { webhook_url: string | null }).webhook_url;
    const { url, secret } = await setWebhookUrl({ orm, settings }, { partnerId, mode }, raw);
    res.json({ webhook_url: url, webhook_secret: secret });
  });

  router.get('/partner/webhook/deliveries', async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const query = req.query as { limit?: number; offset?: number };
    const em = orm.em.fork();
    const events = await webhookEvents.listFor(em, { partnerId, mode }, { limit: Number(query.limit ?? 20), offset: Number(query.offset ?? 0) });
    res.json(await loadWebhookDeliveries(em, events));
  });

  router.post('/partner/webhook/deliveries/:id/redeliver', redeliveryLimit(deps));
  router.post('/partner/webhook/deliveries/:id/redeliver', async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const id = requireUuid(req.params.id, 'Unknown callback');
    const em = orm.em.fork();
    const event = await webhookEvents.findFor(em, { partnerId, mode }, id);
    if (!event) throw ApiError.notFound('Unknown callback');
    if (event.body_removed) throw ApiError.badRequest(BODY_REMOVED, { id: 'its body was removed under the data retention period' });
    await startWebhookSend({ orm, temporal, settings }, id, event.state, mode);
    const [view] = await loadWebhookDeliveries(em, [{ ...event, state: 'pending' }]);
    res.status(202).json(view);
  });

  return router;
}
