import { Router, type Request, type RequestHandler } from 'express';
import { PASSWORD_MIN } from '../../../domain/limits';
import type { AccountService } from '../account-service';
import type { FieldErrors } from '../../../web/dashboard/forms';
import { changePasswordPage, forgotPasswordPage, resetLinkInvalidPage, resetPasswordPage } from '../../../web/dashboard/password-page';
import { formValues, isEmailAddress, pageOf, redirectWith, render } from '../respond';
import { logIn } from '../session';

/** Passwords are taken as typed: spaces count. */
export function passwordOf(req: Request, name: string): string {
  const value: unknown = req.body?.[name];
  return typeof value === 'string' ? value : '';
}

export function newPasswordProblem(password: string): string | null {
  if (!password) return 'Choose a password';
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters`;
  if (password.length > 200) return 'Use at most 200 characters';
  return null;
}

/** Password reset by email (no session needed) and a change of password for a signed-in partner. */
export function createPasswordRoutes(accounts: AccountService, authLimit: RequestHandler): Router {
  const router = Router();

  router.get('/forgot-password', (_req, res) => {
    render(res, forgotPasswordPage(pageOf(res)));
  });

  router.post('/forgot-password', authLimit, async (req, res) => {
    const values = formValues(req, ['email'] as const);
    if (!isEmailAddress(values.email)) {
      return render(res, forgotPasswordPage(pageOf(res), values, { email: 'Enter an email address like name@example.com' }), 400);
    }
    await accounts.requestPasswordReset(values.email);
    render(res, forgotPasswordPage(pageOf(res), values, {}, true));
  });

  router.get('/reset-password', async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    if (!(await accounts.resetLinkWorks(token))) return render(res, resetLinkInvalidPage(pageOf(res)), 400);
    render(res, resetPasswordPage(pageOf(res), token));
  });

  router.post('/reset-password', authLimit, async (req, res) => {
    const token = typeof req.body?.token === 'string' ? (req.body.token as string) : '';
    const password = passwordOf(req, 'password');
    const problem = newPasswordProblem(password);
    if (problem) {
      if (!(await accounts.resetLinkWorks(token))) return render(res, resetLinkInvalidPage(pageOf(res)), 400);
      return render(res, resetPasswordPage(pageOf(res), token, { password: problem }), 400);
    }
    const partnerId = await accounts.resetPassword(token, password);
    if (!partnerId) return render(res, resetLinkInvalidPage(pageOf(res)), 400);
    // Every session of the account has ended. A reset often follows a break-in, so the reader of
    // the mailbox, who just chose the password, is logged in under a new session id and shown
    // every key of the account, to revoke those a stranger made.
    await logIn(req, partnerId);
    await redirectWith(req, res, '/dashboard/keys/review', 'ok', 'Your password is changed and every other browser is logged out.');
  });

  router.get('/account/password', (_req, res) => {
    render(res, changePasswordPage(pageOf(res)));
  });

  router.post('/account/password', authLimit, async (req, res) => {
    const current = passwordOf(req, 'current_password');
    const next = passwordOf(req, 'password');
    const errors: FieldErrors = {};
    if (!current) errors.current_password = 'Enter your current password';
    const problem = newPasswordProblem(next);
    if (problem) errors.password = problem;
    if (!Object.keys(errors).length) {
      const changed = await accounts.changePassword({ partnerId: pageOf(res).viewer!.partnerId, current, next, keepSid: req.sessionID });
      if (changed) return redirectWith(req, res, '/dashboard', 'ok', 'Your password is changed. Other browsers are logged out.');
      errors.current_password = 'This is not your current password';
    }
    render(res, changePasswordPage(pageOf(res), errors), 400);
  });

  return router;
}
