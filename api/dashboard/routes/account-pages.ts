import { Router, type RequestHandler } from 'express';
import type { AccountService } from '../account-service';
import { pageOf, redirectWith, safeDashboardPath } from '../respond';

/** Signed-in account actions: the live/test switch and a fresh confirmation link. */
export function createAccountRoutes(accounts: AccountService, authLimit: RequestHandler): Router {
  const router = Router();

  router.post('/mode', async (req, res) => {
    const mode = req.body?.mode === 'live' ? 'live' : 'test';
    req.session.mode = mode;
    // Detail pages belong to one mode; the list is the sensible place to land after switching.
    const back = safeDashboardPath(req.body?.back).replace(/^\/dashboard\/deliveries\/.+$/, '/dashboard/deliveries');
    await redirectWith(req, res, back, 'ok', mode === 'live' ? 'Showing live data.' : 'Showing test data.');
  });

  router.post('/resend-own', authLimit, async (req, res) => {
    const viewer = pageOf(res).viewer!;
    if (viewer.confirmed) return redirectWith(req, res, '/dashboard', 'ok', 'Your email address is already confirmed.');
    await accounts.resend(viewer.email);
    await redirectWith(req, res, '/dashboard', 'ok', `A new confirmation link is on its way to ${viewer.email}.`);
  });

  return router;
}
