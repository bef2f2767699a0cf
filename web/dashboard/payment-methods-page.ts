import type { PaymentMethod } from '../../db/entities';
import { LIMITS } from '../../domain/limits';
import { html, type Html } from './html';
import { when } from './format';
import { choice, errorSummary, field, type FieldErrors } from './forms';
import { actionButton, csrfInput, layout, type PageContext } from './layout';

export const NETWORKS = [
  { value: 'network_a', label: 'Network A', hint: 'numbers starting 024, 025, 053, 054, 055, 059' },
  { value: 'network_b', label: 'Network B', hint: 'numbers starting 020, 050' },
  { value: 'network_c', label: 'Network C', hint: 'numbers starting 023, 026, 027, 056, 057' },
];

const LABELS = { provider: 'Network', phone: 'Mobile Money number', account_name: 'Account holder name' };

export function networkName(provider: string): string {
  return NETWORKS.find((n) => n.value === provider)?.label ?? provider;
}

function accountList(ctx: PageContext, accounts: PaymentMethod[]): Html {
  if (accounts.length === 0) {
    return html`<p class="empty">No ${ctx.mode} account yet. Bookings are refused until you register one.</p>`;
  }
  return html`<ul class="accounts">
    ${accounts.map(
      (a) => html`<li class="card">
        <div class="card-head">
          <h3>${a.accountName}</h3>
          ${a.isDefault ? html`<span class="badge badge-default">Default</span>` : ''}
        </div>
        <p class="meta"><span class="phone">${a.phone}</span> · ${networkName(a.provider)} · added ${when(a.createdAt)}</p>
        <div class="actions">
          ${a.isDefault ? '' : actionButton(ctx, `/dashboard/payment-methods/${a.id}/default`, html`Make default<span class="visually-hidden"> ${a.phone}</span>`)}
          ${actionButton(ctx, `/dashboard/payment-methods/${a.id}/remove`, html`Remove<span class="visually-hidden"> ${a.phone}</span>`, {
            style: 'danger',
            confirm: `Remove ${a.phone}? Future bookings stop debiting it.`,
          })}
        </div>
      </li>`,
    )}
  </ul>`;
}

export function paymentMethodsPage(
  ctx: PageContext,
  accounts: PaymentMethod[],
  options: { values?: Record<string, string>; errors?: FieldErrors } = {},
): Html {
  const errors = options.errors ?? {};
  const values = options.values ?? {};
  return layout(
    ctx,
    'Mobile Money',
    html`<h1>Mobile Money accounts</h1>
    <p class="lead">Each delivery is paid when you book it, from the account your request names or else from the default one.</p>
    <section aria-labelledby="accounts-title">
      <h2 id="accounts-title">Your ${ctx.mode} accounts</h2>
      ${accountList(ctx, accounts)}
    </section>
    <section class="panel" aria-labelledby="register-title">
      <h2 id="register-title">Register an account</h2>
      <p>We check the number with the network before saving it; when the network holds a name, that name is kept.</p>
      ${
        ctx.mode === 'test'
          ? html`<p class="hint">Sandbox numbers: any valid number such as <code>+233241230001</code> works; ending <code>1111</code> is held by “Ama Serwaa”, <code>0000</code> does not exist, <code>2222</code> declines every debit.</p>`
          : ''
      }
      ${errorSummary(errors)}
      <form method="post" action="/dashboard/payment-methods" novalidate>
        ${csrfInput(ctx)}
        ${choice(errors, { name: 'provider', legend: LABELS.provider, value: values.provider, choices: NETWORKS, preselect: false })}
        ${field(errors, { name: 'phone', label: LABELS.phone, type: 'tel', value: values.phone, inputmode: 'tel', autocomplete: 'tel', required: true, maxlength: 20, hint: 'As +233241234567 or 024 123 4567.' })}
        ${field(errors, { name: 'account_name', label: LABELS.account_name, value: values.account_name, autocomplete: 'name', required: true, maxlength: LIMITS.name })}
        <div class="field"><label class="checkbox" for="is_default"><input type="checkbox" id="is_default" name="is_default" value="true"${values.is_default === 'true' ? html` checked` : ''}> Make it the default account</label></div>
        <button type="submit" class="button primary">Register account</button>
      </form>
    </section>`,
  );
}
