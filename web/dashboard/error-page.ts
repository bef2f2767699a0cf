import { html, type Html } from './html';
import { layout, type PageContext } from './layout';

export function errorPage(ctx: PageContext, title: string, message: string, action?: { href: string; label: string }): Html {
  return layout(
    ctx,
    title,
    html`<section class="narrow">
      <h1>${title}</h1>
      <p class="lead">${message}</p>
      <p><a class="button primary" href="${action?.href ?? '/dashboard'}">${action?.label ?? 'Go to the dashboard'}</a></p>
    </section>`,
  );
}
