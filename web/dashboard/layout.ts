import type { KeyMode } from '../../domain/api-key';
import { html, type Html, type Renderable } from './html';

/** The form field that carries the CSRF token; the API's CSRF check reads the same one. */
export const CSRF_FIELD = '_csrf';

/** The logged-in partner, as every page shows them. */
export interface Viewer {
  partnerId: string;
  email: string;
  businessName: string;
  confirmed: boolean;
}

/** What every page knows about the request it answers. */
export interface PageContext {
  csrf: string;
  viewer: Viewer | null;
  mode: KeyMode;
  /** The path being shown, so forms can come back to it. */
  path: string;
  flash?: { kind: 'ok' | 'error'; text: string } | null;
}

const NAV = [
  { href: '/dashboard', label: 'Overview' },
  { href: '/dashboard/keys', label: 'API keys' },
  { href: '/dashboard/payment-methods', label: 'Mobile Money' },
  { href: '/dashboard/webhook', label: 'Webhook' },
  { href: '/dashboard/deliveries', label: 'Deliveries' },
];

export function csrfInput(ctx: PageContext): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}">`;
}

/** A one-button form: every change goes through POST with the CSRF token. */
export function actionButton(
  ctx: PageContext,
  action: string,
  label: Renderable,
  options: { style?: 'primary' | 'secondary' | 'danger' | 'link'; confirm?: string; fields?: Record<string, string>; describedBy?: string } = {},
): Html {
  const fields = Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="post" action="${action}" class="inline"${options.confirm ? html` data-confirm="${options.confirm}"` : ''}>
    ${csrfInput(ctx)}${fields}
    <button type="submit" class="button ${options.style ?? 'secondary'}"${options.describedBy ? html` aria-describedby="${options.describedBy}"` : ''}>${label}</button>
  </form>`;
}

function isCurrent(ctx: PageContext, href: string): boolean {
  return href === '/dashboard' ? ctx.path === '/dashboard' || ctx.path === '/dashboard/' : ctx.path.startsWith(href);
}

function header(ctx: PageContext): Html {
  const viewer = ctx.viewer;
  if (!viewer) {
    return html`<header class="top"><div class="bar"><a class="brand" href="/dashboard">Partner Delivery</a>
      <nav aria-label="Account" class="account"><a href="/dashboard/login">Log in</a> <a href="/dashboard/signup">Sign up</a></nav></div></header>`;
  }
  const other: KeyMode = ctx.mode === 'live' ? 'test' : 'live';
  return html`<header class="top">
    <div class="bar">
      <a class="brand" href="/dashboard">Partner Delivery</a>
      <div class="account">
        <span class="who" title="${viewer.email}">${viewer.businessName}</span>
        <a href="/dashboard/account/password">Password</a>
        <form method="post" action="/dashboard/logout" class="inline">${csrfInput(ctx)}<button type="submit" class="button link">Log out</button></form>
      </div>
    </div>
    <div class="bar sub">
      <nav aria-label="Dashboard" class="main-nav"><ul>
        ${NAV.map((item) => html`<li><a href="${item.href}"${isCurrent(ctx, item.href) ? html` aria-current="page"` : ''}>${item.label}</a></li>`)}
      </ul></nav>
      <form method="post" action="/dashboard/mode" class="mode-switch">
        ${csrfInput(ctx)}<input type="hidden" name="mode" value="${other}"><input type="hidden" name="back" value="${ctx.path}">
        <span class="mode-badge mode-${ctx.mode}">${ctx.mode === 'live' ? 'Live data' : 'Test data'}</span>
        <button type="submit" class="button link">Show ${other} data</button>
      </form>
    </div>
  </header>`;
}

function flash(ctx: PageContext): Renderable {
  if (!ctx.flash) return null;
  return html`<p class="flash flash-${ctx.flash.kind}" role="${ctx.flash.kind === 'error' ? 'alert' : 'status'}">${ctx.flash.text}</p>`;
}

/**
 * The page shell: one stylesheet, one small script, no inline code (the CSP allows only this
 * origin). A page with a map (`map`) loads Leaflet too, before the script that draws it.
 */
export function layout(ctx: PageContext, title: string, body: Html, { map = false }: { map?: boolean } = {}): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Partner Delivery</title>
<link rel="icon" href="data:,">
${map ? html`<link rel="stylesheet" href="/dashboard/assets/leaflet/leaflet.css">` : ''}
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
${map ? html`<script src="/dashboard/assets/leaflet/leaflet.js" defer></script>` : ''}
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header(ctx)}
<main id="main" tabindex="-1">
${flash(ctx)}
${body}
</main>
<footer class="foot"><a href="/docs">API reference</a></footer>
</body>
</html>`;
}
