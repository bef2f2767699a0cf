import { randomBytes } from 'node:crypto';
import { Router } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookEndpointSchema } from '../../db/entities';
import { isoZ } from '../../domain/delivery-view';
import type { AppDeps } from '../deps';
import { ApiError, requireUuid } from '../errors';
import { partnerOf } from '../middleware/partner-auth';
import { checkWebhookUrl } from '../services/webhook-url';
import { deliveryTimings } from '../services/timings';

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

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
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

/** Loads callbacks with their attempts in two queries. */
export async function loadWebhookDeliveries(em: EntityManager, events: EventRow[]) {
  if (events.length === 0) return [];
  const attempts = await em.execute<AttemptRow[]>(
    `select event_id, attempt, status_code, latency_ms, error, next_retry_at, created_at from webhook_attempts
     where event_id = any(?::uuid[]) order by id`,
    [events.map((e) => e.id)],
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
    const url = raw === null ? null : await checkWebhookUrl(raw, settings.nodeEnv === 'production');
    // A fresh secret every time a URL is set: the previous one stops working at once.
    const secret = url === null ? null : newWebhookSecret();
    await orm.em.fork().execute(
      `insert into webhook_endpoints (partner_id, mode, url, secret, updated_at) values (?, ?, ?, ?, now())
       on conflict (partner_id, mode) do update set url = excluded.url, secret = excluded.secret, updated_at = now()`,
      [partnerId, mode, url, secret],
    );
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
    await temporal.workflow.start('webhookRedeliveryWorkflow', {
      workflowId: `webhook-redelivery-${id}-${Date.now()}`,
      taskQueue: settings.temporalTaskQueue,
      args: [{ eventId: id, timings: deliveryTimings(settings) }],
    });
    await em.execute(`update webhook_events set state = 'pending' where id = ?`, [id]);
    const [view] = await loadWebhookDeliveries(em, [{ ...event, state: 'pending' }]);
    res.status(202).json(view);
  });

  return router;
}
