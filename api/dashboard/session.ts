import type { Request, RequestHandler } from 'express';
import session from 'express-session';
import connectPgSimple from 'connect-pg-simple';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../config/logger';
import * as sessions from '../../db/sessions';
import type { Settings } from '../../config/settings';
import type { KeyMode } from '../../domain/api-key';
import { saveSession } from './respond';

declare module 'express-session' {
  interface SessionData {
    partnerId: string;
    /** Which data the pages show: the test-key world or the live one. */
    mode: KeyMode;
    /**
     * The account this browser signed up for, pending one replaced by this sign-up included (or a
     * random id when the address was confirmed already, so both answers look alike): its
     * confirmation link, confirmed here, logs this browser in.
     */
    signedUp: string;
    /**
     * Which sign-up of that account this browser made (1 for the first). A contested account's
     * link confirms in one click only in the browser of its latest sign-up, even one whose session
     * was saved just after a later sign-up ended the sessions of the earlier ones.
     */
    signUpNumber: number;
    /** A one-line message for the next page (after a redirect). */
    flash: { kind: 'ok' | 'error'; text: string };
  }
}

export const SESSION_COOKIE = 'dashboard_sid';

/**
 * Sessions in Postgres through connect-pg-simple, on the ORM's own connection pool (no second
 * pool to size or close). The cookie is httpOnly, SameSite=Lax, Secure in production, scoped to
 * /dashboard, and rolls: a session ends after DASHBOARD_SESSION_SECONDS without a request.
 */
export function dashboardSession(orm: MikroORM, settings: Settings, logger: Logger, secret: string): RequestHandler {
  const PgStore = connectPgSimple(session);
  const store = new PgStore({
    pool: sessions.storePool(orm.em) as never,
    tableName: sessions.SESSION_TABLE,
    pruneSessionInterval: 15 * 60,
    errorLog: (...args: unknown[]) => logger.warn('Dashboard session store', { error: args.map(String).join(' ') }),
  });
  return session({
    name: SESSION_COOKIE,
    secret,
    store,
    resave: false,
    saveUninitialized: false,
    rolling: true,
    unset: 'destroy',
    cookie: {
      path: '/dashboard',
      httpOnly: true,
      sameSite: 'lax',
      secure: settings.nodeEnv === 'production',
      maxAge: settings.dashboardSessionSeconds * 1000,
    },
  });
}

/** A new session for the partner: a new id, so an id planted before it (session fixation) is worthless. */
export async function logIn(req: Request, partnerId: string): Promise<void> {
  await new Promise<void>((resolve, reject) => req.session.regenerate((error) => (error ? reject(error) : resolve())));
  req.session.partnerId = partnerId;
  req.session.mode = 'test';
  await saveSession(req);
}
