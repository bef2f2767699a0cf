import { Router } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookEndpointSchema } from '../../db/entities';
import { isoZ } from '../../domain/delivery-view';
import type { AppDeps } from '../deps';
import { ApiError, requireUuid } from '../errors';
import { partnerOf } from '../middleware/partner-auth';
import { setWebhookUrl, startWebhookSend } from '../services/webhook-settings';

interface EventRow {
  id: string;
  event: string;
  delivery_id: string | null;
  state: string;
  created_at: Date;
}
interface AttemptRow {
  event_id: string;
  attempt: number;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  next_retry_at: Date | null;
  created_at: Date;
}

function webhookDeliveryView(event: EventRow, attempts: AttemptRow[]) {
  return {
    id: event.id,
    event: event.event,
    delivery_id: event.delivery_id,
    state: event.state,
    created_at: isoZ(event.created_at),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      error: a.error,
      next_retry_at: a.next_retry_at ? isoZ(a.next_retry_at) : null,
      created_at: isoZ(a.created_at),
    })),
  };
}

/** Loads callbacks with their attempts in two queries; attempts newest first, like the callbacks. */
export async function loadWebhookDeliveries(em: EntityManager, events: EventRow[]) {
  if (events.length === 0) return [];
  const attempts = await em.execute<AttemptRow[]>(
    `select event_id, attempt, status_code, latency_ms, error, next_retry_at, created_at from webhook_attempts
     where event_id in (${events.map(() => '?').join(', ')}) order by id desc`,
    events.map((e) => e.id),
  );
  return events.map((event) => webhookDeliveryView(event, attempts.filter((a) => a.event_id === event.id)));
}

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
    const events = await em.execute<EventRow[]>(
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
    const [event] = await em.execute<EventRow[]>(
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
