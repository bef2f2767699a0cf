import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Orm } from '../../db/orm';
import { createApiKey, createPartner } from '../../db/accounts';
import { hashPassword } from '../../api/dashboard/passwords';

/**
 * A browser stand-in for dashboard tests over real HTTP: keeps cookies, does not follow
 * redirects (tests look at them), and fills forms with the CSRF token of the page they are on.
 */
export interface Page {
  status: number;
  location: string | null;
  headers: Headers;
  text: string;
}

export function dashboardClient(baseUrl: string) {
  const jar = new Map<string, string>();

  function keep(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = cookie.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=/i.test(a) && new Date(a.split('=')[1] ?? '').getTime() < Date.now());
      if (!value || expired) jar.delete(name);
      else jar.set(name, value);
    }
  }

  async function request(method: string, pathname: string, form?: Record<string, string>): Promise<Page> {
    const response = await fetch(`${baseUrl}${pathname}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(jar.size ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    keep(response);
    return { status: response.status, location: response.headers.get('location'), headers: response.headers, text: await response.text() };
  }

  const client = {
    jar,
    get: (pathname: string) => request('GET', pathname),
    post: (pathname: string, form: Record<string, string>) => request('POST', pathname, form),
    /** Opens `pagePath`, then posts `fields` to `action` with that page's CSRF token, as a person would. */
    async submit(pagePath: string, action: string, fields: Record<string, string> = {}): Promise<Page> {
      const page = await request('GET', pagePath);
      if (page.status !== 200) throw new Error(`GET ${pagePath}: ${page.status} ${page.location ?? ''}`);
      return request('POST', action, { _csrf: csrfToken(page.text), ...fields });
    },
    async signUp(fields: { email: string; password: string; business_name: string }): Promise<Page> {
      return client.submit('/dashboard/signup', '/dashboard/signup', fields);
    },
    async logIn(email: string, password: string): Promise<Page> {
      return client.submit('/dashboard/login', '/dashboard/login', { email, password });
    },
    /** Opens a confirmation link (`pathOf` it) and presses the button on its page, as its reader would. */
    async confirm(linkPath: string): Promise<Page> {
      const token = new URL(linkPath, baseUrl).searchParams.get('token') ?? '';
      return client.submit(linkPath, '/dashboard/confirm', { token });
    },
  };
  return client;
}

export function csrfToken(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('No CSRF token on the page');
  return match[1];
}

/**
 * A message's text as its reader sees it: quoted-printable soft line breaks and escapes undone
 * when the message says it is so encoded (mail sent over SMTP), left as written otherwise (the
 * `8bit` files of the offline mailer, where a token starting `A3` must not be read as `=A3`).
 */
export function readableText(message: string): string {
  if (!/^Content-Transfer-Encoding: quoted-printable$/im.test(message)) return message;
  return message.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export function confirmLinkIn(message: string): string | null {
  return /https?:\/\/\S+\/dashboard\/confirm\?token=[A-Za-z0-9_-]+/.exec(readableText(message))?.[0] ?? null;
}

/** The `.eml` files written for one recipient, oldest first. */
export async function mailsTo(mailDir: string, to: string): Promise<string[]> {
  let files: string[];
  try {
    files = (await readdir(mailDir)).filter((f) => f.endsWith('.eml')).sort();
  } catch {
    return [];
  }
  const messages = await Promise.all(files.map((f) => readFile(path.join(mailDir, f), 'utf8')));
  return messages.filter((m) => new RegExp(`^To: .*${to.replace(/[.+]/g, '\\$&')}`, 'mi').test(m));
}

/** The path and query of a link, to open it on the test server whatever SITE_URL says. */
export function pathOf(link: string): string {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

let counter = 0;
export function uniqueEmail(name = 'owner'): string {
  counter += 1;
  return `${name}-${Date.now()}-${counter}-${Math.random().toString(36).slice(2, 8)}@shop.example.com`;
}

/**
 * A confirmed partner with a live API key, logged in to the dashboard in live mode: for tests
 * that act through the API and look at what the dashboard shows of it.
 */
export async function liveDashboardOwner(stack: { orm: Orm; baseUrl: string }, businessName = 'Osu Books') {
  const email = uniqueEmail();
  const password = 'correct horse battery';
  const em = stack.orm.em.fork();
  const { partnerId } = await createPartner(em, { email, businessName, passwordHash: await hashPassword(password), confirmed: true });
  const { apiKey } = await createApiKey(em, { partnerId, label: 'live', mode: 'live' });
  const dashboard = dashboardClient(stack.baseUrl);
  await dashboard.logIn(email, password);
  await dashboard.submit('/dashboard/deliveries', '/dashboard/mode', { mode: 'live', back: '/dashboard/deliveries' });
  return { partnerId, apiKey, dashboard };
}
