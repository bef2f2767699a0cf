import { Router } from 'express';
import { accountProgress } from '../../../db/dashboard-reads';
import type { AppDeps } from '../../app-deps';
import { overviewPage } from '../../../web/dashboard/home-page';
import { pageOf, render } from '../respond';

/** The landing page: where the account stands on the way to its first delivery. */
export function createOverviewRoutes({ orm, settings }: AppDeps): Router {
  const router = Router();

  router.get('/', async (_req, res) => {
    const ctx = pageOf(res);
    render(res, overviewPage(ctx, settings, await accountProgress(orm.em.fork(), ctx.viewer!.partnerId, ctx.mode)));
  });

  return router;
}
