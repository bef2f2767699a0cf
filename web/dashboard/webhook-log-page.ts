import type { WebhookDelivery } from '../../domain/webhook-delivery';
import { html, type Html } from './html';
import { badge, when } from './format';
import { actionButton, type PageContext } from './layout';

function attemptLine(a: WebhookDelivery['attempts'][number]): Html {
  const outcome = a.error ? a.error : `HTTP ${a.status_code ?? ''}`;
  return html`<li class="${a.error ? 'attempt-failed' : 'attempt-ok'}">
    Attempt ${a.attempt} · ${when(a.created_at)} · <strong>${outcome}</strong>${a.latency_ms !== null ? ` · ${a.latency_ms} ms` : ''}${
      a.next_retry_at ? html` · next try ${when(a.next_retry_at)}` : ''
    }
  </li>`;
}

function noAttempt(c: WebhookDelivery): Html {
  return c.state === 'skipped' ? html`<p class="muted">Not sent: no callback URL was set at the time.</p>` : html`<p class="muted">No attempt yet.</p>`;
}

/** Each callback with every attempt made, and (while a URL is set) a button to send it again. */
export function callbackLog(ctx: PageContext, callbacks: WebhookDelivery[], references: Map<string, string>, back: string, canSend: boolean): Html {
  if (callbacks.length === 0) return html`<p class="empty">No callbacks yet.</p>`;
  return html`<ul class="log">
    ${callbacks.map((c) => {
      const reference = c.delivery_id ? references.get(c.delivery_id) : undefined;
      return html`<li class="card">
        <div class="card-head">
          <h3><code>${c.event}</code></h3>
          ${badge(c.state)}
        </div>
        <p class="meta">${when(c.created_at)}${
          c.delivery_id ? html` · delivery <a class="ref" href="/dashboard/deliveries/${c.delivery_id}">${reference ?? c.delivery_id}</a>` : ''
        }</p>
        ${c.attempts.length ? html`<ul class="attempts" aria-label="Attempts, newest first">${c.attempts.map(attemptLine)}</ul>` : noAttempt(c)}
        ${
          canSend
            ? actionButton(ctx, `/dashboard/webhook/events/${c.id}/redeliver`, html`${c.attempts.length ? 'Send again' : 'Send now'}<span class="visually-hidden"> ${c.event}</span>`, {
                fields: { back },
              })
            : ''
        }
      </li>`;
    })}
  </ul>`;
}
