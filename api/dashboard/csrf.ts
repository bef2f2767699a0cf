import type { Request } from 'express';
import { doubleCsrf } from 'csrf-csrf';
import type { Settings } from '../../config/settings';
import { CSRF_FIELD } from '../../web/dashboard/layout';

/**
 * Signed double-submit tokens (csrf-csrf): the form field must match an httpOnly cookie whose
 * HMAC binds it to the session, so a page on another site can neither read nor forge the pair.
 * Before log-in every visitor shares the anonymous identity; log-in rotates the session and so
 * invalidates any token issued before it.
 */
export function dashboardCsrf(settings: Settings, secret: () => string) {
  return doubleCsrf({
    getSecret: secret,
    getSessionIdentifier: (req: Request) => (req.session?.partnerId ? req.sessionID : 'anonymous'),
    cookieName: 'dashboard_csrf',
    // Lax, not Strict: opening the dashboard from an emailed link must not replace the cookie that
    // forms in other tabs were issued against.
    cookieOptions: { path: '/dashboard', sameSite: 'lax', secure: settings.nodeEnv === 'production', httpOnly: true },
    getCsrfTokenFromRequest: (req: Request) => (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD] as string | undefined,
  });
}
