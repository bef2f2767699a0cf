import { randomUUID } from 'node:crypto';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { LIMITS, PASSWORD_MIN } from '../../../domain/limits';
import type { AccountService, PendingConfirmation } from '../account-service';
import {
  checkEmailPage,
  claimSignUpPage,
  confirmEmailPage,
  confirmLinkInvalidPage,
  logInPage,
  resendPage,
  signUpPage,
} from '../../../web/dashboard/sign-up-and-log-in-page';
import type { FieldErrors } from '../../../web/dashboard/forms';
import type { Viewer } from '../../../web/dashboard/layout';
import { characters, formValues, isEmailAddress, pageOf, redirectWith, render, safeDashboardPath, saveSession } from '../respond';
import { logIn, SESSION_COOKIE } from '../session';
import { newPasswordProblem, passwordOf } from './password-pages';

/** Whether this browser made the account's latest sign-up (its session says so; see session.ts). */
function madeLatestSignUpHere(req: Request, pending: PendingConfirmation): boolean {
  return pending.partnerId === req.session.signedUp && (req.session.signUpNumber ?? 1) === pending.signUpNumber;
}

/**
 * A contested account's link, in a browser that neither made its latest sign-up nor is logged in
 * as it: the password on the account may be a stranger's, so the reader chooses one.
 */
function mustChoosePassword(req: Request, viewer: Viewer | null, pending: PendingConfirmation): boolean {
  return pending.contested && pending.partnerId !== viewer?.partnerId && !madeLatestSignUpHere(req, pending);
}

/** Sign-up, confirmation, log-in and log-out: the pages reachable without a session. */
export function createAuthRoutes(accounts: AccountService, authLimit: RequestHandler): Router {
  const router = Router();

  router.get('/signup', (_req, res) => {
    if (pageOf(res).viewer) return res.redirect(303, '/dashboard');
    render(res, signUpPage(pageOf(res)));
  });

  router.post('/signup', authLimit, async (req, res) => {
    const values = formValues(req, ['business_name', 'email', 'password'] as const);
    const errors: FieldErrors = {};
    if (!values.business_name) errors.business_name = 'Enter the name of your business';
    else if (characters(values.business_name) > LIMITS.name) errors.business_name = `Use at most ${LIMITS.name} characters`;
    if (!values.email) errors.email = 'Enter your email address';
    else if (!isEmailAddress(values.email)) errors.email = 'Enter an email address like name@example.com';
    // Passwords are taken as typed: spaces count.
    const password = typeof req.body?.password === 'string' ? (req.body.password as string) : '';
    if (!password) errors.password = 'Choose a password';
    else if (password.length < PASSWORD_MIN) errors.password = `Use at least ${PASSWORD_MIN} characters`;
    else if (password.length > 200) errors.password = 'Use at most 200 characters';
    if (Object.keys(errors).length) return render(res, signUpPage(pageOf(res), values, errors), 400);

    const created = await accounts.signUp({ email: values.email, password, businessName: values.business_name });
    // The person who chose the password is in this browser: its confirmation link, confirmed
    // here, logs it in. A confirmed address gets a random id, so the answer tells nothing of the account.
    req.session.signedUp = created?.partnerId ?? randomUUID();
    req.session.signUpNumber = created?.number ?? 1;
    await saveSession(req);
    res.redirect(303, `/dashboard/check-email?email=${encodeURIComponent(values.email)}`);
  });

  router.get('/check-email', (req, res) => {
    const email = typeof req.query.email === 'string' ? req.query.email.slice(0, 254) : '';
    render(res, checkEmailPage(pageOf(res), email));
  });

  /*
   * Opening a link changes nothing: mail scanners fetch every link of a message, and a GET that
   * confirmed would confirm an account a stranger signed up with the address, whose password the
   * stranger holds. The page asks for a click, and only its POST (CSRF-protected) acts.
   *
   * The owner of the mailbox wins, whoever signed up first. Confirmed in the browser of the
   * account's latest sign-up, or one logged in as it, the address is confirmed and that browser
   * logged in. Anywhere else, a click confirms only if the address was signed up for just once
   * (its password was chosen by whoever asked for the mail). Once a second sign-up replaced the
   * pending one (the account is contested), the password on the account may be a stranger's: the
   * page then asks its reader to choose the password and name instead, and its POST confirms,
   * ends every other session and logs this browser in. Confirming a contested account, either
   * way, revokes every key it holds and ends every other session.
   */
  router.get('/confirm', async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const ctx = pageOf(res);
    const pending = await accounts.pendingConfirmation(token);
    if (!pending) return render(res, confirmLinkInvalidPage(ctx), 400);
    if (mustChoosePassword(req, ctx.viewer, pending)) {
      return render(res, claimSignUpPage(ctx, token, pending.email, { business_name: pending.businessName }));
    }
    render(res, confirmEmailPage(ctx, token, pending.email, pending.businessName));
  });

  router.post('/confirm', authLimit, async (req, res) => {
    const token = typeof req.body?.token === 'string' ? (req.body.token as string) : '';
    const ctx = pageOf(res);
    const pending = await accounts.pendingConfirmation(token);
    if (!pending) return render(res, confirmLinkInvalidPage(ctx), 400);
    if (mustChoosePassword(req, ctx.viewer, pending)) return claimSignUp(req, res, token, pending);

    // Checked again and used in one step: a sign-up between the look and this use spends the link.
    const confirmed = await accounts.confirm(token, req.sessionID);
    if (!confirmed) return render(res, confirmLinkInvalidPage(ctx), 400);
    const loggedInAsIt = confirmed === ctx.viewer?.partnerId;
    if (!loggedInAsIt && !madeLatestSignUpHere(req, pending)) {
      return redirectWith(req, res, '/dashboard/login', 'ok', 'Your email address is confirmed. Log in to create API keys.');
    }
    // Confirming is the only step between sign-up and a key, so the browser that signed up is
    // logged in here, under a new session id as at log-in.
    if (!loggedInAsIt) await logIn(req, confirmed);
    return redirectWith(req, res, '/dashboard/keys', 'ok', 'Your email address is confirmed. You can create API keys now.');
  });

  /** The contested account's form: its reader, who holds the mailbox, chooses the password and name. */
  async function claimSignUp(req: Request, res: Response, token: string, pending: PendingConfirmation): Promise<void> {
    const values = formValues(req, ['business_name'] as const);
    const password = passwordOf(req, 'password');
    const errors: FieldErrors = {};
    if (!values.business_name) errors.business_name = 'Enter the name of your business';
    else if (characters(values.business_name) > LIMITS.name) errors.business_name = `Use at most ${LIMITS.name} characters`;
    const problem = newPasswordProblem(password);
    if (problem) errors.password = problem;
    if (Object.keys(errors).length) return render(res, claimSignUpPage(pageOf(res), token, pending.email, values, errors), 400);
    // Checked again and used in one step: single use, expiring, and spent by any newer sign-up.
    const partnerId = await accounts.claimSignUp({ token, password, businessName: values.business_name });
    if (!partnerId) return render(res, confirmLinkInvalidPage(pageOf(res)), 400);
    // Every session of the account has ended; this browser, whose reader holds the mailbox, is
    // logged in under a new session id.
    await logIn(req, partnerId);
    return redirectWith(req, res, '/dashboard/keys', 'ok', 'Your password is saved and your email address is confirmed. Every other browser is logged out.');
  }

  router.get('/login', (req, res) => {
    const ctx = pageOf(res);
    const next = safeDashboardPath(req.query.next, '');
    if (ctx.viewer && next) return res.redirect(303, next);
    // Logged in already: the form still shows, to log in to another account.
    if (ctx.viewer) ctx.flash ??= { kind: 'ok', text: `You are logged in as ${ctx.viewer.businessName}. Log in below to use another account.` };
    if (req.query.expired === '1') ctx.flash = { kind: 'error', text: 'Your session has ended. Log in again to continue.' };
    render(res, logInPage(ctx, {}, {}, next));
  });

  router.post('/login', authLimit, async (req, res) => {
    const values = formValues(req, ['email'] as const);
    const password = typeof req.body?.password === 'string' ? (req.body.password as string) : '';
    const next = safeDashboardPath(req.body?.next, '/dashboard');
    const errors: FieldErrors = {};
    if (!values.email) errors.email = 'Enter your email address';
    if (!password) errors.password = 'Enter your password';
    if (Object.keys(errors).length) return render(res, logInPage(pageOf(res), values, errors, next), 400);

    const partnerId = await accounts.authenticate(values.email, password);
    if (!partnerId) {
      // One message for an unknown address and a wrong password alike.
      return render(res, logInPage(pageOf(res), values, { password: 'The email address or the password is not right' }, next), 400);
    }
    await logIn(req, partnerId);
    res.redirect(303, next);
  });

  router.post('/logout', async (req, res) => {
    await new Promise<void>((resolve, reject) => req.session.destroy((error) => (error ? reject(error) : resolve())));
    res.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
    res.redirect(303, '/dashboard/login');
  });

  router.get('/resend', (_req, res) => {
    render(res, resendPage(pageOf(res)));
  });

  router.post('/resend', authLimit, async (req, res) => {
    const values = formValues(req, ['email'] as const);
    if (!isEmailAddress(values.email)) {
      return render(res, resendPage(pageOf(res), values, { email: 'Enter an email address like name@example.com' }), 400);
    }
    await accounts.resend(values.email);
    render(res, resendPage(pageOf(res), values, {}, true));
  });

  return router;
}
