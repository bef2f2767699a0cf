import type { WebhookDelivery } from '../../domain/webhook-delivery';
import { DELIVERY_STATUSES } from '../../domain/lifecycle';
import type { DeliveryResource } from '../../domain/delivery-view';
import type { PaymentTrailEntry } from '../../domain/payment-trail';
import { html, type Html } from './html';
import { copyField } from './copy';
import { badge, cedis, statusText, when } from './format';
import { layout, type PageContext } from './layout';
import { callbackLog } from './webhook-log-page';

export const PAGE_SIZE = 20;

function filterForm(status: string | null): Html {
  return html`<form method="get" action="/dashboard/deliveries" class="filter">
    <label for="status">Status</label>
    <select id="status" name="status">
      <option value=""${status ? '' : html` selected`}>All</option>
      ${DELIVERY_STATUSES.map((s) => html`<option value="${s}"${s === status ? html` selected` : ''}>${statusText(s)}</option>`)}
    </select>
    <button type="submit" class="button secondary">Show</button>
  </form>`;
}

function pageLink(status: string | null, offset: number, label: string): Html {
  const query = new URLSearchParams({ ...(status ? { status } : {}), ...(offset ? { offset: String(offset) } : {}) }).toString();
  return html`<a href="/dashboard/deliveries${query ? `?${query}` : ''}">${label}</a>`;
}

export function deliveriesPage(ctx: PageContext, deliveries: DeliveryResource[], status: string | null, offset: number, hasMore: boolean): Html {
  return layout(
    ctx,
    'Deliveries',
    html`<h1>Deliveries</h1>
    <p class="lead">Your ${ctx.mode} deliveries, newest first.</p>
    ${filterForm(status)}
    ${
      deliveries.length === 0
        ? html`<p class="empty">${status ? `No ${ctx.mode} deliveries are ${statusText(status).toLowerCase()}.` : html`No ${ctx.mode} deliveries yet. <a href="/dashboard">See how to book one</a>.`}</p>`
        : html`<table class="cards">
          <caption class="visually-hidden">Deliveries${status ? `, ${statusText(status)}` : ''}</caption>
          <thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col">Payment</th><th scope="col">To</th><th scope="col">Fare</th><th scope="col">Booked</th></tr></thead>
          <tbody>
          ${deliveries.map(
            (d) => html`<tr>
              <th scope="row" data-label="Reference"><a class="ref" href="/dashboard/deliveries/${d.id}">${d.reference}</a></th>
              <td data-label="Status">${badge(d.status)}</td>
              <td data-label="Payment">${badge(d.payment_status)}</td>
              <td data-label="To">${d.recipient_name}, ${d.dropoff_address}</td>
              <td data-label="Fare" class="nowrap">${cedis(d.total_fare)}</td>
              <td data-label="Booked">${when(d.created_at)}</td>
            </tr>`,
          )}
          </tbody>
        </table>`
    }
    <nav class="pager" aria-label="Delivery pages">
      ${offset > 0 ? pageLink(status, Math.max(0, offset - PAGE_SIZE), 'Newer') : ''}
      ${hasMore ? pageLink(status, offset + PAGE_SIZE, 'Older') : ''}
    </nav>`,
  );
}

function row(label: string, value: Html | string): Html {
  return html`<div class="row"><dt>${label}</dt><dd>${value}</dd></div>`;
}

/** A text message about a delivery in the outbox: sent there (the offline SMS default), or kept back (`withheld`). */
export interface TextView {
  to: string;
  body: string;
  created_at: string;
  /** Why it was not texted (`hourly_budget`: the partner's hourly text budget was spent); null when sent. */
  withheld: string | null;
}

/** Why a code was not texted, as the partner reads it. */
const WITHHELD: Record<string, string> = { hourly_budget: 'over the hourly budget' };

/**
 * The outbox's texts for this delivery: without a real SMS provider, this is where the codes are;
 * with one, only the codes that were not texted are here.
 */
function textsSection(d: DeliveryResource, texts: TextView[]): Html | '' {
  if (texts.length === 0) {
    if (d.verification_method !== 'otp') return '';
    return html`<section class="panel" aria-labelledby="texts-title">
      <h2 id="texts-title">Texts to recipients</h2>
      <p class="muted">The hand-over codes went out through the SMS provider; they are not kept here.</p>
    </section>`;
  }
  const inOutbox = texts.some((t) => t.withheld === null);
  const keptBack = texts.some((t) => t.withheld !== null);
  return html`<section class="panel" aria-labelledby="texts-title">
    <h2 id="texts-title">Texts to recipients</h2>
    ${inOutbox ? html`<p class="muted">Sent to the SMS outbox (no SMS provider is configured), so nobody’s phone received them.</p>` : ''}
    ${
      keptBack
        ? html`<p>Codes marked <strong>Not texted</strong> were kept back: your deliveries went over the hourly text budget. Give each code to its recipient yourself; the rider completes the hand-over with it as usual.</p>`
        : ''
    }
    <table class="cards">
      <caption class="visually-hidden">Texts to recipients</caption>
      <thead><tr><th scope="col">To</th><th scope="col">Message</th><th scope="col">Sent</th></tr></thead>
      <tbody>
      ${texts.map(
        (t) => html`<tr>
          <th scope="row" data-label="To" class="nowrap">${t.to}</th>
          <td data-label="Message">${t.body}</td>
          <td data-label="Sent">${t.withheld === null ? when(t.created_at) : html`<strong>Not texted</strong>: ${WITHHELD[t.withheld] ?? t.withheld}`}</td>
        </tr>`,
      )}
      </tbody>
    </table>
  </section>`;
}

/** One hand-over as the partner API's proof of delivery gives it (GET /partner/deliveries/{id}/proof). */
export interface HandoverView {
  stop_index: number | null;
  method: string;
  verified_at: string;
  lat: number | null;
  lng: number | null;
  photo_url: string | null;
}

const METHOD_TEXT: Record<string, string> = { none: 'No check', otp: 'Code checked', photo: 'Photo taken' };

/** Each hand-over done: where and when, how it was checked, and the photo (a link signed for this page). */
function proofSection(proof: HandoverView[]): Html {
  return html`<section class="panel" aria-labelledby="proof-title">
    <h2 id="proof-title">Proof of delivery</h2>
    ${
      proof.length === 0
        ? html`<p class="muted">No hand-over yet.</p>`
        : html`<ol class="proof">
          ${proof.map((h) => {
            const drop = h.stop_index === null ? 'Drop-off' : `Stop ${h.stop_index + 1}`;
            const place = h.lat === null || h.lng === null ? html`<span class="muted">Place not known</span>` : `at ${h.lat.toFixed(5)}, ${h.lng.toFixed(5)}`;
            return html`<li>
              <p><strong>${drop}</strong> · ${METHOD_TEXT[h.method] ?? h.method} · ${when(h.verified_at)} · ${place}</p>
              ${
                h.photo_url
                  ? html`<a href="${h.photo_url}"><img src="${h.photo_url}" alt="Photo of the hand-over, ${drop.toLowerCase()}" loading="lazy"></a>`
                  : h.method === 'photo'
                    ? html`<p class="muted">No photo is kept for this hand-over.</p>`
                    : ''
              }
            </li>`;
          })}
        </ol>
        ${proof.some((h) => h.photo_url) ? html`<p class="muted">Photo links work for a few minutes; reload the page for fresh ones.</p>` : ''}`
    }
  </section>`;
}

/** How one payment change came about, in words. */
const PAYMENT_CHANGE_BY: Record<string, string> = {
  workflow: 'the mobile network answered the debit',
  schedule: 'reconciliation asked the mobile network again',
  'late-confirmation': 'a later report from the mobile network, checked with it',
};

/**
 * The payment as it changed. A change after the delivery's last status gets no webhook (the
 * contract has none for payments): it is marked, as the partner learns of it only by reading again.
 */
function paymentSection(trail: PaymentTrailEntry[]): Html {
  return html`<section class="panel" aria-labelledby="payment-title">
    <h2 id="payment-title">Payment trail</h2>
    ${
      trail.length === 0
        ? html`<p class="muted">The debit has not been settled yet.</p>`
        : html`<ol class="trail payment-trail">
        ${trail.map(
          (t) => html`<li>${badge(t.from)} → ${badge(t.to)} ${when(t.at)}
            <span class="muted">${PAYMENT_CHANGE_BY[t.by] ?? t.by}${t.reason ? `: ${t.reason}` : ''}</span>
            ${t.afterFinalWebhook ? html`<strong class="after-final">After the last callback: no webhook was sent; <code>payment_status</code> reads ${t.to} from then on.</strong>` : ''}</li>`,
        )}
      </ol>`
    }
  </section>`;
}

export function deliveryPage(
  ctx: PageContext,
  d: DeliveryResource,
  callbacks: WebhookDelivery[],
  webhookSet: boolean,
  texts: TextView[],
  proof: HandoverView[],
  payments: PaymentTrailEntry[] = [],
): Html {
  const drops = [...d.additional_stops.map((s) => ({ ...s, final: false })), { ...d, status: d.status, final: true }];
  return layout(
    ctx,
    `Delivery ${d.reference}`,
    html`<p class="crumbs"><a href="/dashboard/deliveries">Deliveries</a></p>
    <h1>Delivery ${d.reference}</h1>
    <p class="status-line">${badge(d.status)} <span>Payment: ${badge(d.payment_status)}</span></p>
    <section class="panel" aria-labelledby="track-title">
      <h2 id="track-title">Public tracking page</h2>
      ${copyField('tracking-link', 'Link to share with your customer', d.tracking_url, 'Anyone with this link sees the route, the rider and the ETA, never phone numbers or fares.')}
      <p><a href="${d.tracking_url}">Open the tracking page</a></p>
    </section>
    <section class="panel" aria-labelledby="details-title">
      <h2 id="details-title">Details</h2>
      <dl class="details">
        ${row('Pick-up', d.pickup_address)}
        ${drops.map((s, i) =>
          row(
            s.final ? 'Drop-off' : `Stop ${i + 1}`,
            html`${s.dropoff_address}<br><span class="muted">${s.recipient_name}, ${s.recipient_phone} · ${s.package_size}</span>${s.final ? '' : html` ${badge(s.status)}`}`,
          ),
        )}
        ${row('Package', `${d.package_size}${d.package_description ? `: ${d.package_description}` : ''}`)}
        ${row('Hand-over check', d.verification_method === 'none' ? 'None' : d.verification_method === 'otp' ? 'Code sent to the recipient' : 'Photo')}
        ${d.scheduled_at ? row('Scheduled for', when(d.scheduled_at)) : ''}
        ${row('Rider', d.rider ? `${d.rider.name}${d.rider.vehicle ? `, ${d.rider.vehicle}` : ''}` : 'Not yet assigned')}
        ${row('Distance', `${d.distance_km} km`)}
        ${row('Fare', html`${cedis(d.total_fare)} <span class="muted">(base ${cedis(d.base_fare)} + distance ${cedis(d.distance_fee)} + service ${cedis(d.service_fee)})</span>`)}
        ${row('Booked', when(d.created_at))}
        ${row('Delivery id', html`<code class="break">${d.id}</code>`)}
      </dl>
    </section>
    <section class="panel" aria-labelledby="trail-title">
      <h2 id="trail-title">Event trail</h2>
      <ol class="trail">
        ${d.events.map((e) => html`<li>${badge(e.status)} ${when(e.created_at)}</li>`)}
      </ol>
    </section>
    ${paymentSection(payments)}
    ${proofSection(proof)}
    ${textsSection(d, texts)}
    <section aria-labelledby="callbacks-title">
      <h2 id="callbacks-title">Callbacks for this delivery</h2>
      ${callbackLog(ctx, callbacks, new Map([[d.id, d.reference]]), `/dashboard/deliveries/${d.id}`, webhookSet)}
    </section>`,
  );
}
