import path from 'node:path';
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import cookieParser from 'cookie-parser';
import helmet from 'helmet';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import { isUnavailable } from '../middleware/error-handler';
import { createAccountService } from './account-service';
import { dashboardCsrf } from './csrf';
import { createMailer } from '../../integrations/email/mailer';
import { authRateLimit } from './form-rate-limit';
import { errorPage } from '../../web/dashboard/error-page';
import { confirmFirstPage } from '../../web/dashboard/password-page';
import type { PageContext } from '../../web/dashboard/layout';
import { tileSource } from '../../web/map-tiles';
import { pageDirectives } from '../middleware/page-policy';
import { pageOf, render, saveSession } from './respond';
import { createAccountRoutes } from './routes/account-pages';
import { createAuthRoutes } from './routes/auth-pages';
import { createDeliveryRoutes } from './routes/deliveries-pages';
import { createKeyRoutes } from './routes/keys-pages';
import { createOverviewRoutes } from './routes/overview-page';
import { createPasswordRoutes } from './routes/password-pages';
import { createPaymentMethodRoutes } from './routes/payment-methods-pages';
import { createWebhookRoutes } from './routes/webhook-pages';
import { loadCookieSecret } from './secret';
import { dashboardSession, SESSION_COOKIE } from './session';

const WEB = path.resolve(__dirname, '../../web');
const LEAFLET_DIR = path.dirname(require.resolve('leaflet/dist/leaflet.js'));

/** Pages and forms for visitors without a session. */
const PUBLIC_PATHS = new Set(['/signup', '/check-email', '/confirm', '/login', '/resend', '/forgot-password', '/reset-password']);

/**
 * Only this origin: no inline script or style, no framing, forms post back here only. Map tiles
 * (the service area's map) come from MAP_TILE_URL's origin when one is set, and hand-over photos
 * from the photo store's, when it serves its own signed links.
 */
function securityHeaders(production: boolean, tiles: string | null, photos: string | undefined): RequestHandler {
  const images = pageDirectives(tiles)['img-src'] ?? [];
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: pageDirectives(tiles, {
        'form-action': ["'self'"],
        'img-src': [...images, ...(photos ? [photos] : [])],
        ...(production ? { 'upgrade-insecure-requests': [] } : {}),
      }),
    },
    referrerPolicy: { policy: 'same-origin' },
  });
}

/**
 * The partner dashboard, server-rendered: sign-up and log-in, keys, webhook, Mobile Money
 * accounts and deliveries. Sessions live in Postgres and every form carries a CSRF token.
 */
export function createDashboardRouter(deps: AppDeps): Router {
  const { orm, settings, logger } = deps;
  const router = Router();
  const accounts = createAccountService({ orm, settings, logger, mailer: createMailer(settings, logger) });

  // The cookie secret may come from the database, so sessions are set up on the first request.
  let secret = '';
  let session: RequestHandler | null = null;
  let loading: Promise<void> | null = null;
  const ready = (): Promise<void> =>
    (loading ??= loadCookieSecret(orm, settings).then(
      (value) => {
        secret = value;
        session = dashboardSession(orm, settings, logger, value);
      },
      (error: unknown) => {
        loading = null;
        throw error;
      },
    ));
  const csrf = dashboardCsrf(settings, () => secret);

  const authLimit = authRateLimit(deps);

  router.use(securityHeaders(settings.nodeEnv === 'production', tileSource(settings.mapTileUrl), deps.photos.linkOrigin));
  router.get(['/assets/dashboard.css', '/assets/dashboard.js'], (req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.sendFile(path.join(WEB, path.basename(req.path)));
  });
  // The service area's map, from node_modules as the tracking page has it: nothing from elsewhere.
  router.use('/assets/leaflet', express.static(LEAFLET_DIR, { maxAge: '1d', index: false }));
  router.use((_req, res, next) => {
    // Pages can hold a secret shown once; no cache may keep them.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(cookieParser());
  router.use(express.urlencoded({ extended: false, limit: '20kb', parameterLimit: 50 }));
  router.use(async (req, res, next) => {
    await ready();
    session!(req, res, next);
  });
  router.use(async (req, res, next) => {
    const partnerId = req.session.partnerId;
    const viewer = partnerId ? await accounts.viewer(partnerId) : null;
    const flash = req.session.flash ?? null;
    if (flash && req.method === 'GET') {
      delete req.session.flash;
      await saveSession(req);
    }
    let token: string | null = null;
    const page: PageContext = {
      get csrf() {
        token ??= csrf.generateCsrfToken(req, res);
        return token;
      },
      viewer,
      // Live data waits for a confirmed address, whatever a session says.
      mode: viewer?.confirmed ? (req.session.mode ?? 'test') : 'test',
      path: req.originalUrl.split('#')[0] ?? '/dashboard',
      flash: req.method === 'GET' ? flash : null,
    };
    res.locals.page = page;
    next();
  });
  // Checked before CSRF, so a form posted after the session ran out leads to log-in, not to an error.
  router.use((req, res, next) => {
    if (pageOf(res).viewer || PUBLIC_PATHS.has(req.path)) return next();
    const expired = sessionRanOut(req) && req.path !== '/logout' ? '&expired=1' : '';
    const back = req.method === 'GET' ? req.originalUrl : '/dashboard';
    res.redirect(303, `/dashboard/login?next=${encodeURIComponent(back)}${expired}`);
  });
  router.use(csrf.doubleCsrfProtection);
  router.use(confirmedOnly);

  router.use(createAuthRoutes(accounts, authLimit));
  router.use(createPasswordRoutes(accounts, authLimit));
  router.use(createAccountRoutes(accounts, authLimit));
  router.use(createOverviewRoutes(deps));
  router.use(createKeyRoutes(orm, settings.apiKeysMaxActive));
  router.use(createPaymentMethodRoutes(deps));
  router.use(createWebhookRoutes(deps));
  router.use(createDeliveryRoutes(deps));

  router.use((_req, _res, next) => next(ApiError.notFound('No such page')));
  router.use(dashboardErrors(deps));
  return router;
}

/**
 * Live mode and Mobile Money accounts (whose registration runs the network's holder-name check)
 * wait until the email address is confirmed: an account anyone can open with someone else's
 * address must not move money or learn names. Keys are refused on their own page (routes/keys-pages.ts).
 */
function confirmedOnly(req: Request, res: Response, next: NextFunction): void {
  const ctx = pageOf(res);
  if (!ctx.viewer || ctx.viewer.confirmed) return next();
  const toLive = req.method === 'POST' && req.path === '/mode' && req.body?.mode === 'live';
  const payments = req.path === '/payment-methods' || req.path.startsWith('/payment-methods/');
  if (toLive || payments) return render(res, confirmFirstPage(ctx), 403);
  next();
}

/**
 * True when the browser sent a session cookie whose session the store no longer has: it ran out,
 * or was logged out elsewhere (express-session then starts a new session under another id). A
 * browser whose session still exists, such as the one that signed up, was never logged in.
 */
function sessionRanOut(req: Request): boolean {
  const raw: unknown = req.cookies?.[SESSION_COOKIE];
  if (typeof raw !== 'string' || !raw) return false;
  // express-session signs the cookie as `s:<session id>.<signature>`.
  const id = raw.startsWith('s:') ? raw.slice(2, raw.lastIndexOf('.')) : raw;
  return id !== req.sessionID;
}

/** Errors as pages a person can act on, never JSON or a stack trace. */
function dashboardErrors({ logger }: AppDeps) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return;
    const ctx: PageContext = (res.locals.page as PageContext | undefined) ?? { csrf: '', viewer: null, mode: 'test', path: req.originalUrl };
    const e = error as { code?: string; status?: number };
    if (e?.code === 'EBADCSRFTOKEN') {
      return render(res, errorPage(ctx, 'This form has expired', 'Nothing was changed. Go back, reload the page and try again.', { href: ctx.path.split('?')[0] ?? '/dashboard', label: 'Reload the page' }), 403);
    }
    if (error instanceof ApiError && error.status === 404) {
      return render(res, errorPage(ctx, 'Not found', 'There is nothing here. It may belong to the other mode (test or live), or to another account.'), 404);
    }
    // 415: a form in a charset or a Content-Encoding the body parser does not read.
    if (e?.status === 413 || e?.status === 400 || e?.status === 415) {
      return render(res, errorPage(ctx, 'That did not work', 'The form could not be read. Go back and try again.'), e.status);
    }
    if (isUnavailable(error) || (error instanceof ApiError && error.status === 503)) {
      logger.error('Dashboard: backing service unavailable', { path: req.path, error: error instanceof Error ? error.message : String(error) });
      return render(res, errorPage(ctx, 'Try again in a moment', 'A service we rely on is not answering. Nothing was lost.'), 503);
    }
    logger.error('Dashboard error', { method: req.method, path: req.path, error: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined });
    render(res, errorPage(ctx, 'Something went wrong', `It was our fault, not yours. Reference: ${String(res.locals.requestId ?? '')}`), 500);
  };
}
