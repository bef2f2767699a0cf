import { Router } from 'express';
import { DeliverySchema } from '../../../db/entities';
import { readDeliveryTexts } from '../../../db/sms-outbox';
import { loadDelivery, loadDeliveryParts } from '../../../db/delivery-reads';
import { deliveryView } from '../../../domain/delivery-view';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../../domain/lifecycle';
import type { AppDeps } from '../../deps';
import { ApiError, requireUuid } from '../../errors';
import { loadWebhookDeliveries, type WebhookEventRow } from '../../services/webhook-log';
import { deliveriesPage, deliveryPage, PAGE_SIZE } from '../../../web/dashboard/deliveries';
import { pageOf, pageOffset, render } from '../respond';

/** The delivery list (filtered by status) and one delivery with its trail, callbacks and texts. */
export function createDeliveryRoutes({ orm, settings }: AppDeps): Router {
  const router = Router();

  router.get('/deliveries', async (req, res) => {
    const ctx = pageOf(res);
    const status = (DELIVERY_STATUSES as readonly string[]).includes(String(req.query.status)) ? (req.query.status as DeliveryStatus) : null;
    const offset = pageOffset(req.query.offset);
    const em = orm.em.fork();
    const rows = await em.find(
      DeliverySchema,
      { partnerId: ctx.viewer!.partnerId, mode: ctx.mode, ...(status ? { status } : {}) },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: PAGE_SIZE + 1, offset },
    );
    const parts = await loadDeliveryParts(em, rows.slice(0, PAGE_SIZE));
    render(res, deliveriesPage(ctx, parts.map((p) => deliveryView(p, settings.siteUrl)), status, offset, rows.length > PAGE_SIZE));
  });

  router.get('/deliveries/:id', async (req, res) => {
    const ctx = pageOf(res);
    const id = requireUuid(req.params.id, 'Unknown delivery');
    const em = orm.em.fork();
    const parts = await loadDelivery(em, id);
    // Another partner's delivery, or one of the other mode, is simply unknown here.
    if (!parts || parts.delivery.partnerId !== ctx.viewer!.partnerId || parts.delivery.mode !== ctx.mode) {
      throw ApiError.notFound('Unknown delivery');
    }
    const events = await em.execute<WebhookEventRow[]>(
      `select id, event, delivery_id, state, created_at from webhook_events where delivery_id = ? and partner_id = ?
       order by created_at desc, id desc`,
      [id, ctx.viewer!.partnerId],
    );
    const callbacks = await loadWebhookDeliveries(em, events);
    const [endpoint] = await em.execute<{ url: string | null }[]>('select url from webhook_endpoints where partner_id = ? and mode = ?', [
      ctx.viewer!.partnerId,
      ctx.mode,
    ]);
    const texts = await readDeliveryTexts(em, id);
    render(res, deliveryPage(ctx, deliveryView(parts, settings.siteUrl), callbacks, Boolean(endpoint?.url), texts));
  });

  return router;
}
