import { Router } from 'express';
import * as deliveries from '../../db/deliveries';
import { deliveryView, liveFieldsOf, recordLive, settledDeliveryView, withRecordLive, type LiveFields, type SettledDeliveryView } from '../../domain/delivery-view';
import { SANDBOX_RIDER_HEADER, type SandboxRider } from '../../domain/sandbox-rider';
import { cancelRefusal } from '../../domain/steps';
import { cancelUpdate } from '../../workflows/messages';
import { sandboxedInProduction } from '../../config/settings';
import type { AppDeps } from '../app-deps';
import { ApiError, requireUuid } from '../api-error';
import { throwIfRefused } from '../refusals';
import { idempotencyClaimOf, idempotent } from './idempotent-requests';
import { partnerOf } from '../middleware/partner-auth';
import { storableText } from './storable-text';
import type { BookingRequest, DeliveryChangeRequest } from '../openapi/schemas';
import { createBookingService } from './booking-service';
import { createDeliveryChanges } from './delivery-changes';
import { endJobCalls } from '../masked-calls';
import { refuseEnded, sendDeliveryUpdate } from '../temporal/delivery-updates';
import { currentEta } from '../live-eta';
import { viewReads } from '../metric-registry';
import { VersionedViewCache, keep, sendWithEtag, type Kept } from '../view-cache';
import { createProofView } from './proof-view';

/** Booking, listing, fetching, changing and cancelling a partner's deliveries. */
export function createDeliveriesRouter(deps: AppDeps): Router {
  const { orm, settings } = deps;
  const router = Router();
  const bookings = createBookingService(deps);
  const changeDelivery = createDeliveryChanges(deps);
  // A staging deployment (ALLOW_SANDBOX_IN_PRODUCTION) books live deliveries no money pays for.
  const livePaymentsSandboxed = sandboxedInProduction(settings).includes('payments');

  /** A delivery of this partner in this mode; anything else is unknown (404), never forbidden. */
  async function ownDelivery(partnerId: string, mode: string, rawId: string | undefined) {
    const id = requireUuid(rawId, 'Unknown delivery');
    const parts = await deliveries.load(orm.em.fork(), id);
    if (!parts || parts.delivery.partnerId !== partnerId || parts.delivery.mode !== mode) throw ApiError.notFound('Unknown delivery');
    return parts;
  }

  router.post(
    '/partner/deliveries',
    storableText,
    // A repeat of a booking whose answer was lost is answered with the delivery it booked, once
    // that can no longer be withdrawn.
    idempotent(deps, 'deliveries', {
      answerFromResource: bookings.answerForRepeat,
      mayBeWithdrawn: bookings.mayBeWithdrawn,
      firstRequestMs: bookings.longestBookingMs,
      headersThatCount: [SANDBOX_RIDER_HEADER],
    }),
    async (req, res) => {
      const partner = partnerOf(res);
      // Its values are checked against the OpenAPI document before this runs.
      const sandboxRider = req.get(SANDBOX_RIDER_HEADER) as SandboxRider | undefined;
      const view = await bookings.book(partner, req.body as BookingRequest, idempotencyClaimOf(res), { sandboxRider });
      if (livePaymentsSandboxed && partner.mode === 'live') {
        deps.logger.warn('Live booking taken while live payments go to a test network (ALLOW_SANDBOX_IN_PRODUCTION): no money will be taken for it', {
          deliveryId: view.id,
          partnerId: partner.partnerId,
        });
      }
      res.status(201).json(view);
    },
  );

  router.get('/partner/deliveries', async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const query = req.query as { limit?: number; offset?: number; status?: string };
    const em = orm.em.fork();
    const page = await deliveries.findForPartner(
      em,
      { partnerId, mode, status: query.status },
      { limit: Number(query.limit ?? 20), offset: Number(query.offset ?? 0) },
    );
    const parts = await deliveries.loadParts(em, page);
    res.json(parts.map((p) => deliveryView(p, settings.siteUrl)));
  });

  // Partners poll deliveries they are waiting on: the settled part of an unchanged one is kept,
  // and where the rider is and the times ahead placed in it afresh on every read.
  const views = new VersionedViewCache<Kept<SettledDeliveryView>>({ entries: 10_000, bytes: 16_000_000, idleMs: 120_000 });
  router.get('/partner/deliveries/:id', async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const id = requireUuid(req.params.id, 'Unknown delivery');
    const em = orm.em.fork();
    const owned = (owner: { partnerId: string; mode: string }) => owner.partnerId === partnerId && owner.mode === mode;
    let kept: Kept<SettledDeliveryView> | undefined;
    let live: LiveFields | undefined;
    // Only when a record is kept is the version a round trip of its own; otherwise the whole read
    // brings the live fields with the rest. Whose it is is checked first either way: another
    // partner's id, or its ETag, learns nothing but 404.
    if (views.holds(id)) {
      const current = await deliveries.versionWithLive(em, id);
      if (!current || !owned(current)) throw ApiError.notFound('Unknown delivery');
      kept = views.get(id, current.version);
      live = current.live;
    }
    if (kept === undefined || live === undefined) {
      const read = await deliveries.loadVersioned(em, id);
      if (!read || !owned(read.parts.delivery)) throw ApiError.notFound('Unknown delivery');
      kept = keep(settledDeliveryView(read.parts, settings.siteUrl));
      views.set(id, read.version, kept);
      live = liveFieldsOf(read.parts);
      viewReads.inc({ view: 'record', settled: 'built' });
    } else {
      viewReads.inc({ view: 'record', settled: 'kept' });
    }
    const { settled } = kept;
    const { status } = settled.view;
    // A live delivery's ETA is refreshed when due, at most every 20 s, shared with the tracking view.
    const eta = await currentEta(deps, settled.trip, settled.stops, live);
    const shown = recordLive(status, live, eta?.times);
    sendWithEtag(req, res, kept.digest, shown, () => withRecordLive(settled, shown));
  });

  const proofOf = createProofView(deps);
  router.get('/partner/deliveries/:id/proof', async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const { delivery } = await ownDelivery(partnerId, mode, req.params.id);
    const proof = await proofOf(delivery);
    // Each read signs its photo links afresh; a kept copy would hand out links nearer their end.
    res.setHeader('Cache-Control', 'no-store');
    res.json(proof);
  });

  // Who receives each drop and what the parcel is, until that drop is handed over; while pending,
  // where each drop is, priced again. A dry run tells what it would do to the fare.
  router.patch('/partner/deliveries/:id', storableText, idempotent(deps, 'delivery-changes'), async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const parts = await ownDelivery(partnerId, mode, req.params.id as string);
    const preview = await changeDelivery(parts, req.body as DeliveryChangeRequest);
    if (preview) return res.json(preview);
    const fresh = await deliveries.load(orm.em.fork(), parts.delivery.id);
    res.json(deliveryView(fresh ?? parts, settings.siteUrl));
  });

  router.post('/partner/deliveries/:id/cancel', async (req, res) => {
    const { partnerId, mode } = partnerOf(res);
    const parts = await ownDelivery(partnerId, mode, req.params.id);
    const { status } = parts.delivery;
    // A status only moves forward, so one recorded past `accepted` is refused here, without
    // asking the workflow: the same answer, and it holds while Temporal is unreachable.
    throwIfRefused(cancelRefusal(status));
    if (status !== 'cancelled') {
      await sendDeliveryUpdate(
        deps,
        parts.delivery.id,
        (handle) => handle.executeUpdate(cancelUpdate),
        async () => (await deliveries.load(orm.em.fork(), parts.delivery.id))?.delivery.status ?? null,
        // Another cancel ended the workflow after this one read `pending`: the delivery is
        // cancelled, as asked, so this one is answered like any repeat (200).
        (ended) => (ended === 'cancelled' ? 'done' : refuseEnded(ended)),
      );
      // A rider who had accepted may hold masked numbers for the recipients: they stop now.
      await endJobCalls(deps, parts.delivery.id);
    }
    const fresh = await deliveries.load(orm.em.fork(), parts.delivery.id);
    res.json(deliveryView(fresh ?? parts, settings.siteUrl));
  });

  return router;
}
