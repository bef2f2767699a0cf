import type { KeyMode } from '../../domain/api-key';
import { LIMITS } from '../../domain/limits';
import { html, type Html } from './html';
import { copyField } from './copy';
import type { ApiKeyListing } from '../../db/accounts';
import { badge, when } from './format';
import { choice, errorSummary, field, type FieldErrors } from './forms';
import { actionButton, csrfInput, layout, type PageContext } from './layout';

export interface NewKey {
  label: string;
  mode: KeyMode;
  secret: string;
}

function createdPanel(created: NewKey): Html {
  return html`<section class="panel reveal" aria-labelledby="new-key-title">
    <h2 id="new-key-title">Your new ${created.mode} key “${created.label}”</h2>
    <p><strong>Copy it now and keep it on your server.</strong> We store only a fingerprint of it, so this is the only time it is shown.</p>
    ${copyField('new-key', 'Secret key', created.secret)}
  </section>`;
}

/** The keys as a table; `everyMode` adds a column for each key's mode, and revoking comes back to `back`. */
function keyTable(ctx: PageContext, keys: ApiKeyListing[], options: { caption: string; empty: string; everyMode?: boolean; back?: string }): Html {
  if (keys.length === 0) return html`<p class="empty">${options.empty}</p>`;
  return html`<table class="cards">
    <caption class="visually-hidden">${options.caption}</caption>
    <thead><tr><th scope="col">Label</th>${options.everyMode ? html`<th scope="col">Kind</th>` : ''}<th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>
    ${keys.map(
      (k) => html`<tr${k.revoked_at ? html` class="revoked"` : ''}>
        <th scope="row" data-label="Label">${k.label}</th>
        ${options.everyMode ? html`<td data-label="Kind">${k.mode === 'live' ? 'Live' : 'Test'}</td>` : ''}
        <td data-label="Key"><code>${k.prefix}…</code></td>
        <td data-label="Created">${when(k.created_at)}</td>
        <td data-label="Last used">${when(k.last_used_at)}</td>
        <td data-label="Status">${k.revoked_at ? html`${badge('revoked')} ${when(k.revoked_at)}` : badge('active')}</td>
        <td class="actions">${
          k.revoked_at
            ? ''
            : actionButton(ctx, `/dashboard/keys/${k.id}/revoke`, html`Revoke<span class="visually-hidden"> ${k.label}</span>`, {
                style: 'danger',
                confirm: `Revoke the key “${k.label}”? Requests with it are refused at once.`,
                ...(options.back ? { fields: { back: options.back } } : {}),
              })
        }</td>
      </tr>`,
    )}
    </tbody>
  </table>`;
}

/**
 * Every key of the account, live and test together: where a password reset lands, since a reset
 * often follows a break-in and a stranger's keys outlive the sessions it ended.
 */
export function keyReviewPage(ctx: PageContext, keys: ApiKeyListing[]): Html {
  const active = keys.filter((k) => !k.revoked_at).length;
  return layout(
    ctx,
    'Check your API keys',
    html`<h1>Check your API keys</h1>
    <p class="lead">These are all the API keys of the account, live and test. A key works until it is revoked, whoever made it and whatever the password: revoke any you do not know.</p>
    <p>${active === 0 ? 'No key of this account works now.' : `${active} ${active === 1 ? 'key works' : 'keys work'} now.`} <a href="/dashboard/keys">Go to API keys</a> to create one.</p>
    ${keyTable(ctx, keys, { caption: 'Every API key of the account', empty: 'This account has no API keys.', everyMode: true, back: '/dashboard/keys/review' })}`,
  );
}

export function keysPage(
  ctx: PageContext,
  keys: ApiKeyListing[],
  options: { created?: NewKey; values?: Record<string, string>; errors?: FieldErrors } = {},
): Html {
  const errors = options.errors ?? {};
  const values = options.values ?? {};
  const confirmed = ctx.viewer?.confirmed ?? false;
  return layout(
    ctx,
    'API keys',
    html`<h1>API keys</h1>
    <p class="lead">A key lets your server book and follow deliveries. Test keys (<code>sk_test_…</code>) use the sandbox; live keys (<code>sk_live_…</code>) book real riders and take real money.</p>
    ${options.created ? createdPanel(options.created) : ''}
    <section class="panel" aria-labelledby="create-title">
      <h2 id="create-title">Create a key</h2>
      ${
        confirmed
          ? html`${errorSummary(errors)}
            <form method="post" action="/dashboard/keys" novalidate>
              ${csrfInput(ctx)}
              ${field(errors, { name: 'label', label: 'Label', value: values.label, required: true, maxlength: LIMITS.label, hint: 'To tell keys apart, e.g. “Shop server” or “Staging”.' })}
              ${choice(errors, {
                name: 'mode',
                legend: 'Kind of key',
                value: values.mode ?? ctx.mode,
                choices: [
                  { value: 'test', label: 'Test', hint: 'sandbox riders and payments' },
                  { value: 'live', label: 'Live', hint: 'real riders, real Mobile Money' },
                ],
              })}
              <button type="submit" class="button primary">Create key</button>
            </form>`
          : html`<p class="notice" role="note">Confirm your email address first: open the link we sent to <strong>${ctx.viewer?.email ?? ''}</strong>.</p>
            ${actionButton(ctx, '/dashboard/resend-own', 'Send the link again')}`
      }
    </section>
    <section aria-labelledby="list-title">
      <h2 id="list-title">Your ${ctx.mode} keys</h2>
      ${keyTable(ctx, keys, { caption: `Your ${ctx.mode} API keys`, empty: `No ${ctx.mode} keys yet.` })}
    </section>`,
  );
}
