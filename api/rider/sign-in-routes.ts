import { Router } from 'express';
import * as riderSignIns from '../../db/rider-sign-ins';
import { generateSecret, hashSecret } from '../../domain/api-key';
import { SIGN_IN_CODE } from '../../domain/rider-sign-in';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import { jsonBody } from '../middleware/json-body';
import { riderSignInRateLimit } from '../middleware/rate-limit';

/** What a refused code tells the phone: enough for the rider to know to ask for a new link. */
const REFUSALS: Record<riderSignIns.SignInRefusal, string> = {
  unknown: 'This sign-in link is not valid; ask an operator for a new one',
  used: 'This sign-in link was already used; ask an operator for a new one',
  expired: 'This sign-in link has expired; ask an operator for a new one',
};

/**
 * POST /rider/sign-in `{code}`: the rider app exchanges a one-time code from an operator's link
 * for a rider token, once. It comes before the rider token check in app.ts (the phone has no token
 * yet), so it reads and checks its own small body; its per-IP budget counts every try.
 */
export function createRiderSignInRouter(deps: AppDeps): Router {
  const router = Router();
  router.post('/rider/sign-in', riderSignInRateLimit(deps), jsonBody(), async (req, res) => {
    const code = (req.body as { code?: unknown } | undefined)?.code;
    if (typeof code !== 'string' || !SIGN_IN_CODE.test(code)) {
      throw ApiError.badRequest('The sign-in code is missing or malformed', { code: 'must be the 32-character code of a sign-in link' });
    }
    // Shown once, to the phone; only its hash is stored, as for a token an operator issues.
    const riderToken = generateSecret('live', 'rk');
    const outcome = await riderSignIns.redeem(deps.orm.em.fork(), hashSecret(code), hashSecret(riderToken), deps.settings.riderTokenDays);
    if ('refused' in outcome) throw ApiError.unauthorized(REFUSALS[outcome.refused], { reason: outcome.refused });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ rider_id: outcome.riderId, rider_token: riderToken });
  });
  return router;
}
