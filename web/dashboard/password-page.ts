import { PASSWORD_MIN } from '../../domain/limits';
import { html, type Html } from './html';
import { errorSummary, field, type FieldErrors } from './forms';
import { csrfInput, layout, type PageContext } from './layout';

/** "Forgot your password?": the same answer whether or not the address has an account. */
export function forgotPasswordPage(ctx: PageContext, values: Record<string, string> = {}, errors: FieldErrors = {}, sent = false): Html {
  return layout(
    ctx,
    'Reset your password',
    html`<section class="narrow">
      <h1>Reset your password</h1>
      ${sent
        ? html`<p class="flash flash-ok" role="status">If an account uses <strong>${values.email ?? ''}</strong>, a link to choose a new password is on its way. It can take a minute; look in your spam folder too.</p>`
        : html`<p class="lead">Enter the email address of your account and we send you a link to choose a new password.</p>`}
      ${errorSummary(errors)}
      <form method="post" action="/dashboard/forgot-password" novalidate>
        ${csrfInput(ctx)}
        ${field(errors, { name: 'email', label: 'Email address', type: 'email', value: values.email, autocomplete: 'username', inputmode: 'email', required: true, maxlength: 254 })}
        <button type="submit" class="button primary">Send link</button>
      </form>
      <p><a href="/dashboard/login">Back to log in</a></p>
    </section>`,
  );
}

/** The form behind a reset link; the token rides along in a hidden field. */
export function resetPasswordPage(ctx: PageContext, token: string, errors: FieldErrors = {}): Html {
  return layout(
    ctx,
    'Choose a new password',
    html`<section class="narrow">
      <h1>Choose a new password</h1>
      <p class="lead">Every browser logged in to the account is logged out when you save it. Then you see every API key of the account, to revoke any you do not know.</p>
      ${errorSummary(errors)}
      <form method="post" action="/dashboard/reset-password" novalidate>
        ${csrfInput(ctx)}
        <input type="hidden" name="token" value="${token}">
        ${field(errors, { name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', required: true, maxlength: 200, hint: `At least ${PASSWORD_MIN} characters.` })}
        <button type="submit" class="button primary">Save password</button>
      </form>
    </section>`,
  );
}

export function resetLinkInvalidPage(ctx: PageContext): Html {
  return layout(
    ctx,
    'Link not valid',
    html`<section class="narrow">
      <h1>This link does not work any more</h1>
      <p class="lead">Password reset links work once and expire after a while.</p>
      <p><a class="button primary" href="/dashboard/forgot-password">Send a new link</a> <a class="button secondary" href="/dashboard/login">Log in</a></p>
    </section>`,
  );
}

/** For a signed-in partner: the current password, then the new one. */
export function changePasswordPage(ctx: PageContext, errors: FieldErrors = {}): Html {
  return layout(
    ctx,
    'Change your password',
    html`<section class="narrow">
      <h1>Change your password</h1>
      <p class="lead">Other browsers logged in to this account are logged out; this one stays logged in.</p>
      ${errorSummary(errors)}
      <form method="post" action="/dashboard/account/password" novalidate>
        ${csrfInput(ctx)}
        ${field(errors, { name: 'current_password', label: 'Current password', type: 'password', autocomplete: 'current-password', required: true, maxlength: 200 })}
        ${field(errors, { name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', required: true, maxlength: 200, hint: `At least ${PASSWORD_MIN} characters.` })}
        <button type="submit" class="button primary">Change password</button>
      </form>
    </section>`,
  );
}

/** What an unconfirmed account sees where money or the network's name check would be. */
export function confirmFirstPage(ctx: PageContext): Html {
  return layout(
    ctx,
    'Confirm your email address first',
    html`<section class="narrow">
      <h1>Confirm your email address first</h1>
      <p class="lead">Live mode, Mobile Money accounts and API keys work once your email address is confirmed. Open the link we sent to <strong>${ctx.viewer?.email ?? ''}</strong>.</p>
      <form method="post" action="/dashboard/resend-own">
        ${csrfInput(ctx)}
        <button type="submit" class="button primary">Send the link again</button>
      </form>
      <p><a href="/dashboard">Back to the overview</a></p>
    </section>`,
  );
}
