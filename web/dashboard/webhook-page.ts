import { LIMITS } from '../../domain/limits';
import type { WebhookDelivery } from '../../domain/webhook-delivery';
import { html, type Html } from './html';
import { copyField } from './copy';
import { errorSummary, field, type FieldErrors } from './forms';
import { actionButton, csrfInput, layout, type PageContext } from './layout';
import { callbackLog } from './webhook-log-page';

/** Callbacks per page of the log. */
export const PAGE_SIZE = 20;

export interface WebhookPageData {
  url: string | null;
  callbacks: WebhookDelivery[];
  references: Map<string, string>;
  offset: number;
  hasMore: boolean;
  newSecret?: string;
  values?: Record<string, string>;
  errors?: FieldErrors;
}

function secretPanel(secret: string): Html {
  return html`<section class="panel reveal" aria-labelledby="secret-title">
    <h2 id="secret-title">Your signing secret</h2>
    <p><strong>Copy it now.</strong> It is shown only this once; setting the URL again makes a new one and the old one stops working.</p>
    ${copyField('webhook-secret', 'Signing secret', secret)}
    <p>Each callback carries <code>X-Service-Signature: sha256=&lt;hex&gt;</code>: the HMAC-SHA256 of the raw body bytes, keyed with this secret. Recompute it over the exact bytes you receive and compare in constant time.</p>
  </section>`;
}

export function webhookPage(ctx: PageContext, data: WebhookPageData): Html {
  const errors = data.errors ?? {};
  const shown = data.values?.webhook_url ?? data.url ?? '';
  return layout(
    ctx,
    'Webhook',
    html`<h1>Webhook</h1>
    <p class="lead">We post a signed JSON callback to your URL each time one of your ${ctx.mode} deliveries changes status, and retry up to five times if your server does not answer 2xx within 10 seconds.</p>
    ${data.newSecret ? secretPanel(data.newSecret) : ''}
    <section class="panel" aria-labelledby="url-title">
      <h2 id="url-title">Callback URL</h2>
      <p>${data.url ? html`Callbacks go to <code class="break">${data.url}</code>.` : 'No URL is set, so no callbacks are sent.'}</p>
      ${errorSummary(errors)}
      <form method="post" action="/dashboard/webhook" novalidate>
        ${csrfInput(ctx)}
        ${field(errors, { name: 'webhook_url', label: 'Callback URL', type: 'url', value: shown, inputmode: 'url', required: true, maxlength: LIMITS.webhookUrl, hint: 'An HTTPS address on your server, e.g. https://shop.example.com/hooks/deliveries.' })}
        <button type="submit" class="button primary">${data.url ? 'Save and make a new secret' : 'Save URL'}</button>
      </form>
      ${data.url ? actionButton(ctx, '/dashboard/webhook/clear', 'Stop callbacks (remove URL)', { style: 'danger', confirm: 'Stop sending callbacks?' }) : ''}
    </section>
    <section class="panel" aria-labelledby="test-title">
      <h2 id="test-title">Try it</h2>
      <p id="test-hint">Sends a <code>webhook.test</code> event to your URL, signed like the real ones.</p>
      ${data.url
        ? actionButton(ctx, '/dashboard/webhook/test', 'Send a test event', { style: 'primary', describedBy: 'test-hint' })
        : html`<p class="muted">Set a URL first.</p>`}
    </section>
    <section aria-labelledby="log-title">
      <h2 id="log-title">Recent callbacks</h2>
      <p><a href="/dashboard/webhook?offset=${data.offset}" class="button secondary">Refresh</a></p>
      ${callbackLog(ctx, data.callbacks, data.references, `/dashboard/webhook`, data.url !== null)}
      <nav class="pager" aria-label="Callback pages">
        ${data.offset > 0 ? html`<a href="/dashboard/webhook?offset=${Math.max(0, data.offset - PAGE_SIZE)}">Newer</a>` : ''}
        ${data.hasMore ? html`<a href="/dashboard/webhook?offset=${data.offset + PAGE_SIZE}">Older</a>` : ''}
      </nav>
    </section>`,
  );
}
