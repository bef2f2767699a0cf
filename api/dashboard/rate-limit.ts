import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { AppDeps } from '../deps';
import { PostgresRateLimitStore } from '../middleware/rate-limit-store';
import { errorPage } from '../../web/dashboard/errors';
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
