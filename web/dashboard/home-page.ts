import type { Settings } from '../../config/settings';
import { serviceAreaGeoJson } from '../../domain/service-area';
import { tileSource } from '../map-tiles';
import { html, type Html } from './html';
import { copyButton } from './copy';
import { actionButton, layout, type PageContext } from './layout';

export interface Progress {
  keys: number;
  accounts: number;
  webhookUrl: string | null;
  deliveries: number;
}

function step(done: boolean, title: string, body: Html): Html {
  return html`<li class="step${done ? ' done' : ''}">
    <span class="step-mark" aria-hidden="true">${done ? '✓' : ''}</span>
    <div><h3>${title}${done ? html` <span class="visually-hidden">(done)</span>` : ''}</h3>${body}</div>
  </li>`;
}

/**
 * Where bookings may go: the areas on a map (drawn by dashboard.js from the GeoJSON it carries,
 * on MAP_TILE_URL's tiles when set, a plain grid otherwise), and the same in words.
 */
function serviceAreaSection(settings: Settings): Html {
  const names = [...new Set(settings.serviceArea.map((area) => area.name))];
  const inWords = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? '');
  return html`<section class="service-area" aria-labelledby="service-area-title">
    <h2 id="service-area-title">Where we deliver</h2>
    <p>Every pickup, stop and drop-off must lie in ${inWords}, and a route may be at most ${settings.maxRouteKm} km by road.
      Anything else is refused with <code>400</code> and nothing is charged. Your server can fetch these areas as GeoJSON from
      <code>GET /api/v1/partner/service-area</code>.</p>
    <div class="area-map" id="service-area-map" role="img" aria-label="${`Map of the areas we deliver in: ${names.join(', ')}`}"
      data-areas="${JSON.stringify(serviceAreaGeoJson(settings.serviceArea))}"
      data-tile-url="${tileSource(settings.mapTileUrl) ? (settings.mapTileUrl ?? '') : ''}"></div>
  </section>`;
}

/** The first-time path in five steps, each ticked off as the account reaches it. */
export function overviewPage(ctx: PageContext, settings: Settings, progress: Progress): Html {
  const viewer = ctx.viewer!;
  const example = [
    `curl -X POST ${settings.siteUrl}/api/v1/partner/deliveries \\`,
    `  -H "Authorization: Bearer YOUR_${ctx.mode.toUpperCase()}_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{`,
    `    "pickup_address": "Makola Market, Accra",`,
    `    "pickup_lat": 5.5497, "pickup_lng": -0.2096,`,
    `    "dropoff_address": "Osu Oxford Street, Accra",`,
    `    "dropoff_lat": 5.556, "dropoff_lng": -0.1823,`,
    `    "package_size": "small",`,
    `    "recipient_name": "Ama Mensah",`,
    `    "recipient_phone": "+233241234567",`,
    `    "payment_method": "gateway"`,
    `  }'`,
  ].join('\n');
  return layout(
    ctx,
    'Overview',
    html`<h1>Welcome, ${viewer.businessName}</h1>
    <p class="lead">Five steps to your first delivery. You are looking at <strong>${ctx.mode}</strong> data: ${
      ctx.mode === 'test'
        ? 'test keys book deliveries that a robot rider carries out, and money moves only in the sandbox.'
        : 'live keys book real riders and debit real Mobile Money accounts.'
    }</p>
    <ol class="steps">
      ${step(
        viewer.confirmed,
        'Confirm your email address',
        viewer.confirmed
          ? html`<p>${viewer.email} is confirmed.</p>`
          : html`<p>We sent a link to <strong>${viewer.email}</strong>. Open it to confirm your address; then you can create keys.</p>
              ${actionButton(ctx, '/dashboard/resend-own', 'Send the link again')}`,
      )}
      ${step(
        progress.keys > 0,
        `Create a ${ctx.mode} API key`,
        html`<p>Your server sends it as <code>Authorization: Bearer &lt;key&gt;</code>. Keep it on the server, never in an app or a web page.</p>
          <p><a href="/dashboard/keys">${progress.keys > 0 ? `Manage keys (${progress.keys} active)` : 'Create a key'}</a></p>`,
      )}
      ${step(
        progress.accounts > 0,
        'Register a Mobile Money account',
        html`<p>Each delivery is paid from it when you book. ${
          ctx.mode === 'test' ? html`In test mode use a sandbox number such as <code>+233241230001</code> on Network A.` : ''
        }</p>
          <p><a href="/dashboard/payment-methods">${progress.accounts > 0 ? `Manage accounts (${progress.accounts})` : 'Register an account'}</a></p>`,
      )}
      ${step(
        progress.webhookUrl !== null,
        'Tell us where to send status updates (optional)',
        html`<p>We post a signed callback to your URL each time a delivery changes status. You can also poll the delivery instead.</p>
          <p><a href="/dashboard/webhook">${progress.webhookUrl ? 'Webhook settings' : 'Set a webhook URL'}</a></p>`,
      )}
      ${step(
        progress.deliveries > 0,
        'Book a delivery from your server',
        html`<p>One request books, prices, dispatches and pays. Replace the key with yours:</p>
          <pre class="code" id="example-request" tabindex="0" aria-label="Example request"><code>${example}</code></pre>
          ${copyButton('example-request')}
          <p><a href="/dashboard/deliveries">${progress.deliveries > 0 ? `See your deliveries (${progress.deliveries})` : 'Your deliveries will show here'}</a> ·
            <a href="/docs">Every endpoint, with examples</a></p>`,
      )}
    </ol>
    ${serviceAreaSection(settings)}`,
    { map: true },
  );
}
