import { Router } from 'express';
import type { AppDeps } from '../../deps';
import { overviewPage } from '../../../web/dashboard/home';
import { pageOf, render } from '../respond';

/** The landing page: where the account stands on the way to its first delivery. */
export function createOverviewRoutes({ orm, settings }: AppDeps): Router {
  const router = Router();

  router.get('/', async (_req, res) => {
    const ctx = pageOf(res);
    const [row] = await orm.em.fork().execute<{ keys: string; accounts: string; webhook_url: string | null; deliveries: string }[]>(
      `select
         (select count(*) from api_keys where partner_id = ? and mode = ? and revoked_at is null) as keys,
         (select count(*) from payment_methods where partner_id = ? and mode = ? and deleted_at is null) as accounts,
         (select url from webhook_endpoints where partner_id = ? and mode = ?) as webhook_url,
         (select count(*) from deliveries where partner_id = ? and mode = ?) as deliveries`,
      Array(4).fill([ctx.viewer!.partnerId, ctx.mode]).flat(),
    );
    render(
      res,
      overviewPage(ctx, settings, {
        keys: Number(row?.keys ?? 0),
        accounts: Number(row?.accounts ?? 0),
        webhookUrl: row?.webhook_url ?? null,
        deliveries: Number(row?.deliveries ?? 0),
      }),
    );
  });

  return router;
}
