import { Router } from 'express';
import { WebhookEndpointSchema } from '../../db/entities';
import type { AppDeps } from '../deps';
import { ApiError, requireUuid } from '../errors';
import { partnerOf } from '../middleware/partner-auth';
import { loadWebhookDeliveries, type WebhookEventRow } from '../services/webhook-log';
import { setWebhookUrl, startWebhookSend } from '../services/webhook-settings';

/** Callback URL settings, the callback log and redelivery. */
export function createWebhookRouter({ orm, temporal, settings }: AppDeps): Router {
  const router = Router();

  router.get('/partner/webhook', async (_req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const endpoint = await orm.em.fork().findOne(WebhookEndpointSchema, { partnerId, mode });
    res.json({ webhook_url: endpoint?.url ?? null });
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
    const events = await em.execute<WebhookEventRow[]>(
      `select id, event, delivery_id, state, created_at from webhook_events where partner_id = ? and mode = ?
       order by created_at desc, id desc limit ? offset ?`,
      [partnerId, mode, Number(query.limit ?? 20), Number(query.offset ?? 0)],
    );
    res.json(await loadWebhookDeliveries(em, events));
  });

  router.post('/partner/webhook/deliveries/:id/redeliver', async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const id = requireUuid(req.params.id, 'Unknown callback');
    const em = orm.em.fork();
    const [event] = await em.execute<WebhookEventRow[]>(
      'select id, event, delivery_id, state, created_at from webhook_events where id = ? and partner_id = ? and mode = ?',
      [id, partnerId, mode],
    );
    if (!event) throw ApiError.notFound('Unknown callback');
    await startWebhookSend({ orm, temporal, settings }, id, event.state);
    const [view] = await loadWebhookDeliveries(em, [{ ...event, state: 'pending' }]);
    res.status(202).json(view);
  });

  return router;
}
