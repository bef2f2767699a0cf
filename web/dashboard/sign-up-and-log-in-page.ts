import { LIMITS, PASSWORD_MIN } from '../../domain/limits';
import { html, type Html } from './html';
import { errorSummary, field, type FieldErrors } from './forms';
import { csrfInput, layout, type PageContext } from './layout';

const SIGNUP_LABELS = { business_name: 'Business name', email: 'Email address', password: 'Password' };

export function signUpPage(ctx: PageContext, values: Record<string, string> = {}, errors: FieldErrors = {}): Html {
  return layout(
    ctx,
    'Create your account',
    html`<section class="narrow">
      <h1>Create your partner account</h1>
      <p class="lead">Book motorbike deliveries from your own systems. After you confirm your email address you can create an API key.</p>
      ${errorSummary(errors)}
      <form method="post" action="/dashboard/signup" novalidate>
        ${csrfInput(ctx)}
        ${field(errors, { name: 'business_name', label: SIGNUP_LABELS.business_name, value: values.business_name, autocomplete: 'organization', required: true, maxlength: LIMITS.name })}
        ${field(errors, { name: 'email', label: SIGNUP_LABELS.email, type: 'email', value: values.email, autocomplete: 'email', inputmode: 'email', required: true, maxlength: 254, hint: 'We send a confirmation link here.' })}
        ${field(errors, { name: 'password', label: SIGNUP_LABELS.password, type: 'password', autocomplete: 'new-password', required: true, maxlength: 200, hint: `At least ${PASSWORD_MIN} characters.` })}
        <button type="submit" class="button primary">Create account</button>
      </form>
      <p>Already have an account? <a href="/dashboard/login">Log in</a>.</p>
    </section>`,
  );
}

const LOGIN_LABELS = { email: 'Email address', password: 'Password' };

export function logInPage(ctx: PageContext, values: Record<string, string> = {}, errors: FieldErrors = {}, next = ''): Html {
  return layout(
    ctx,
    'Log in',
    html`<section class="narrow">
      <h1>Log in</h1>
      ${errorSummary(errors)}
      <form method="post" action="/dashboard/login" novalidate>
        ${csrfInput(ctx)}
        ${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
        ${field(errors, { name: 'email', label: LOGIN_LABELS.email, type: 'email', value: values.email, autocomplete: 'username', inputmode: 'email', required: true, maxlength: 254 })}
        ${field(errors, { name: 'password', label: LOGIN_LABELS.password, type: 'password', autocomplete: 'current-password', required: true, maxlength: 200 })}
        <button type="submit" class="button primary">Log in</button>
      </form>
      <p>Forgot your password? <a href="/dashboard/forgot-password">Reset it</a>.</p>
      <p>New here? <a href="/dashboard/signup">Create an account</a>.</p>
      <p>Did not get the confirmation email? <a href="/dashboard/resend">Send it again</a>.</p>
    </section>`,
  );
}

export function checkEmailPage(ctx: PageContext, email: string): Html {
  return layout(
    ctx,
    'Check your email',
    html`<section class="narrow">
      <h1>Check your email</h1>
      <p class="lead">If <strong>${email}</strong> can be used for an account, we have sent a message there. Open the link in it to confirm your address.</p>
      <p>The link works once. It can take a minute to arrive; look in your spam folder too.</p>
      <p><a class="button primary" href="/dashboard/login">Go to log in</a></p>
      <p>Nothing arrived? <a href="/dashboard/resend">Send the link again</a>.</p>
    </section>`,
  );
}

export function resendPage(ctx: PageContext, values: Record<string, string> = {}, errors: FieldErrors = {}, sent = false): Html {
  return layout(
    ctx,
    'Send the confirmation link again',
    html`<section class="narrow">
      <h1>Send the confirmation link again</h1>
      ${sent
        ? html`<p class="flash flash-ok" role="status">If an account that still needs confirming uses <strong>${values.email ?? ''}</strong>, a new link is on its way.</p>`
        : ''}
      ${errorSummary(errors)}
      <form method="post" action="/dashboard/resend" novalidate>
        ${csrfInput(ctx)}
        ${field(errors, { name: 'email', label: 'Email address', type: 'email', value: values.email, autocomplete: 'email', inputmode: 'email', required: true, maxlength: 254 })}
        <button type="submit" class="button primary">Send link</button>
      </form>
      <p><a href="/dashboard/login">Back to log in</a></p>
    </section>`,
  );
}

/**
 * Behind the confirmation link of a contested account (signed up for more than once before it was
 * confirmed), opened in a browser other than the latest sign-up's: its reader holds the mailbox,
 * so they choose the password rather than confirm one someone else may have chosen. The token
 * rides along in a hidden field.
 */
export function claimSignUpPage(ctx: PageContext, token: string, email: string, values: Record<string, string> = {}, errors: FieldErrors = {}): Html {
  return layout(
    ctx,
    'Choose your password',
    html`<section class="narrow">
      <h1>Choose your password</h1>
      <p class="lead"><strong>${email}</strong> was used to sign up more than once before it was confirmed, perhaps by someone else, so the password on the account may not be yours. The account goes to whoever reads this address's mail: choose its password and business name.</p>
      <p>Saving them confirms your email address, stops any other password, revokes any API key the account holds and logs out every other browser.</p>
      ${errorSummary(errors)}
      <form method="post" action="/dashboard/confirm" novalidate>
        ${csrfInput(ctx)}
        <input type="hidden" name="token" value="${token}">
        ${field(errors, { name: 'business_name', label: SIGNUP_LABELS.business_name, value: values.business_name, autocomplete: 'organization', required: true, maxlength: LIMITS.name })}
        ${field(errors, { name: 'password', label: SIGNUP_LABELS.password, type: 'password', autocomplete: 'new-password', required: true, maxlength: 200, hint: `At least ${PASSWORD_MIN} characters.` })}
        <button type="submit" class="button primary">Confirm and log in</button>
      </form>
    </section>`,
  );
}

/**
 * Behind a confirmation link: what it would confirm, and a button. Opening the link changes
 * nothing, since mail scanners open every link of a message; only the button's POST confirms.
 */
export function confirmEmailPage(ctx: PageContext, token: string, email: string, businessName: string): Html {
  return layout(
    ctx,
    'Confirm your email address',
    html`<section class="narrow">
      <h1>Confirm your email address</h1>
      <p class="lead">Confirm <strong>${email}</strong> for the account of <strong>${businessName}</strong>.</p>
      <p>Confirm only if you signed up for this account yourself: whoever chose its password can then create API keys and use live mode. If you did not sign up, close this page; nothing has changed.</p>
      <form method="post" action="/dashboard/confirm">
        ${csrfInput(ctx)}
        <input type="hidden" name="token" value="${token}">
        <button type="submit" class="button primary">Confirm my email address</button>
      </form>
    </section>`,
  );
}

export function confirmLinkInvalidPage(ctx: PageContext): Html {
  return layout(
    ctx,
    'Link not valid',
    html`<section class="narrow">
      <h1>This link does not work any more</h1>
      <p class="lead">Confirmation links work once and expire after a while. If your address is already confirmed, just log in.</p>
      <p><a class="button primary" href="/dashboard/resend">Send a new link</a> <a class="button secondary" href="/dashboard/login">Log in</a></p>
    </section>`,
  );
}
