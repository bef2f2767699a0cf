import { Router } from 'express';
import * as dashboardReads from '../../../db/dashboard-reads';
import * as webhookEndpoints from '../../../db/webhook-endpoints';
import { readDeliveryTexts } from '../../../db/sms-outbox';
import * as deliveries from '../../../db/deliveries';
import { paymentTrail } from '../../../db/debits';
import { deliveryView } from '../../../domain/delivery-view';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../../domain/lifecycle';
import type { AppDeps } from '../../app-deps';
import { ApiError, requireUuid } from '../../api-error';
import { loadWebhookDeliveries } from '../../partner/webhook-log-view';
import { createProofView } from '../../partner/proof-view';
import { deliveriesPage, deliveryPage, PAGE_SIZE } from '../../../web/dashboard/deliveries-page';
import { pageOf, pageOffset, render } from '../respond';

/** The delivery list (filtered by status) and one delivery with its trail, callbacks and texts. */
export function createDeliveryRoutes(deps: AppDeps): Router {
  const { orm, settings } = deps;
  const router = Router();
  const proofOf = createProofView(deps);

  router.get('/deliveries', async (req, res) => {
    const ctx = pageOf(res);
    const status = (DELIVERY_STATUSES as readonly string[]).includes(String(req.query.status)) ? (req.query.status as DeliveryStatus) : null;
    const offset = pageOffset(req.query.offset);
    const em = orm.em.fork();
    const rows = await dashboardReads.listDeliveries(em, { partnerId: ctx.viewer!.partnerId, mode: ctx.mode, status, limit: PAGE_SIZE + 1, offset });
    const parts = await deliveries.loadParts(em, rows.slice(0, PAGE_SIZE));
    render(res, deliveriesPage(ctx, parts.map((p) => deliveryView(p, settings.siteUrl)), status, offset, rows.length > PAGE_SIZE));
  });

  router.get('/deliveries/:id', async (req, res) => {
    const ctx = pageOf(res);
    const id = requireUuid(req.params.id, 'Unknown delivery');
    const em = orm.em.fork();
    const parts = await deliveries.load(em, id);
    // Another partner's delivery, or one of the other mode, is simply unknown here.
    if (!parts || parts.delivery.partnerId !== ctx.viewer!.partnerId || parts.delivery.mode !== ctx.mode) {
      throw ApiError.notFound('Unknown delivery');
    }
    const events = await dashboardReads.webhookEventsOfDelivery(em, id, ctx.viewer!.partnerId);
    const callbacks = await loadWebhookDeliveries(em, events);
    const url = await webhookEndpoints.findUrl(em, { partnerId: ctx.viewer!.partnerId, mode: ctx.mode });
    const texts = await readDeliveryTexts(em, id);
    const proof = await proofOf(parts.delivery);
    const payments = await paymentTrail(em, id);
    render(res, deliveryPage(ctx, deliveryView(parts, settings.siteUrl), callbacks, Boolean(url), texts, proof, payments));
  });

  return router;
}
