import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import { PostgresRateLimitStore } from '../middleware/rate-limit-store';
import { errorPage } from '../../web/dashboard/error-page';
import { pageOf, render } from './respond';

/**
 * Sign-up, log-in and resend share one budget per client IP (RATE_LIMIT_AUTH_PER_MINUTE), in
 * Postgres when the API's rate limits are shared, so guessing passwords stays slow on every process.
 */
export function authRateLimit({ settings, orm, logger }: AppDeps): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: settings.rateLimitAuthPerMinute,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    identifier: 'dashboard-auth',
    keyGenerator: (req: Request) => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown', 56),
    ...(settings.rateLimitStore === 'postgres' ? { store: new PostgresRateLimitStore(orm, 'dashboard-auth') } : {}),
    passOnStoreError: false,
    validate: { xForwardedForHeader: false, forwardedHeader: false },
    logger: { error: (...args: unknown[]) => logger.error('Rate limiter', { detail: String(args[1] ?? args[0]) }), warn: () => undefined },
    handler: (_req, res) => {
      const page = errorPage(pageOf(res), 'Too many attempts', 'For your safety we slow down repeated tries. Wait a minute, then try again.', {
        href: '/dashboard/login',
        label: 'Back to log in',
      });
      render(res, page, 429);
    },
  });
}

/**
 * A per-partner budget of the API (api/middleware/rate-limit.ts) on a dashboard form: the same
 * limiter, so the dashboard and the API spend one budget, answered with a page and 429.
 */
export function dashboardLimit(limit: RequestHandler, what: string, back: { href: string; label: string }): RequestHandler {
  return (req, res, next) => {
    res.locals.partnerId ??= pageOf(res).viewer?.partnerId;
    return limit(req, res, (error?: unknown) => {
      if (!(error instanceof ApiError) || error.status !== 429) return next(error);
      const minutes = Math.max(1, Math.ceil(Number(res.getHeader('retry-after') ?? 60) / 60));
      const wait = minutes === 1 ? 'a minute' : `${minutes} minutes`;
      render(res, errorPage(pageOf(res), `Too many ${what}`, `You have reached the limit of ${what} for this hour. Nothing was changed. Try again in ${wait}.`, back), 429);
    });
  };
}
