import { Router, type NextFunction, type Request, type Response } from 'express';
import * as deliveries from '../../db/deliveries';
import * as tracking from '../../db/tracking';
import type { LiveFields } from '../../domain/delivery-view';
import { settledTrackingView, trackingLive, withTrackingLive, type SettledTrackingView } from '../../domain/tracking-view';
import type { AppDeps } from '../app-deps';
import { ApiError, requireUuid } from '../api-error';
import { currentEta } from '../live-eta';
import { viewReads } from '../metric-registry';
import { VersionedViewCache, keep, sendWithEtag, type Kept } from '../view-cache';

/** The public view is the one surface any web page may read: any origin, no credentials. */
export function publicCors(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', req.get('access-control-request-headers') ?? 'Content-Type');
  res.setHeader('Access-Control-Max-Age', '600');
  // A page polling from another origin must be able to read how long to back off when limited.
  res.setHeader('Access-Control-Expose-Headers', 'Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, X-Request-Id, ETag');
  if (req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  next();
}

/**
 * GET /track/{id}/public: the redacted view (domain/tracking-view.ts). The id is the credential.
 * No phone number, fare or hand-over code is ever in it; names are a first name and an initial.
 */
export function createTrackingRouter(deps: AppDeps): Router {
  const { orm, settings } = deps;
  const router = Router();

  // Many recipients may poll one delivery, each every 5 to 10 s: the settled part of its view is
  // kept while anyone reads it, and the rider's position and the minutes ahead placed in it afresh.
  const views = new VersionedViewCache<Kept<SettledTrackingView>>({ entries: 10_000, bytes: 16_000_000, idleMs: 60_000 });

  router.get('/track/:id/public', async (req, res) => {
    const id = requireUuid(req.params.id, 'Unknown delivery');
    // Live data behind a bearer-like id: neither caches nor search engines keep it. A page that
    // polls may still send If-None-Match itself, and is answered 304 when nothing moved.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Robots-Tag', 'noindex');
    const em = orm.em.fork();
    let kept: Kept<SettledTrackingView> | undefined;
    let live: LiveFields | undefined;
    // Only when a view is kept is the version a round trip of its own; otherwise the whole read
    // brings the live fields with the rest.
    if (views.holds(id)) {
      const current = await deliveries.versionWithLive(em, id);
      if (current === null) throw ApiError.notFound('Unknown delivery');
      kept = views.get(id, current.version);
      live = current.live;
    }
    if (kept === undefined || live === undefined) {
      const row = await tracking.publicView(em, id);
      if (!row) throw ApiError.notFound('Unknown delivery');
      kept = keep(settledTrackingView(row, settings.referencePrefix));
      views.set(id, row.version, kept);
      live = row.live;
      viewReads.inc({ view: 'tracking', settled: 'built' });
    } else {
      viewReads.inc({ view: 'tracking', settled: 'kept' });
    }
    const { settled } = kept;
    const shown = trackingLive(settled, live, await currentEta(deps, settled.trip, settled.stops, live));
    sendWithEtag(req, res, kept.digest, shown, () => withTrackingLive(settled, shown));
  });
  return router;
}
