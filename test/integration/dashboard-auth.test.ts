import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { startTestStack, type TestStack } from '../helpers/stack';
import { confirmLinkIn, csrfToken, dashboardClient, readableText, mailsTo, pathOf, uniqueEmail } from '../helpers/dashboard';
import { eventually } from '../helpers/http';
import { apiKeysOf, emailTokensOf, expireEmailTokensOf, partnerByEmail } from '../helpers/db-accounts';

/** Messages as a real SMTP server on 127.0.0.1 received them. */
interface Received {
  to: string[];
  raw: string;
}

let stack: TestStack;
let smtp: SMTPServer;
const inbox: Received[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (raw += chunk));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  stack = await startTestStack({ withoutWorker: true, env: { SMTP_URL: `smtp://127.0.0.1:${port}`, RATE_LIMIT_AUTH_PER_MINUTE: '1000' } });
});
afterAll(async () => {
  await stack?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const mailTo = (email: string, count = 1) =>
  eventually(async () => {
    const messages = inbox.filter((m) => m.to.includes(email.toLowerCase()));
    return messages.length >= count ? messages : undefined;
  }, 10_000, `mail to ${email}`);

const PASSWORD = 'correct horse battery';

async function signUp(email: string, password = PASSWORD, business = 'Kumasi Crafts') {
  const client = dashboardClient(stack.baseUrl);
  const page = await client.signUp({ email, password, business_name: business });
  return { client, page };
}

async function confirmedAccount() {
  const email = uniqueEmail();
  const { client } = await signUp(email);
  const [message] = await mailTo(email);
  await client.confirm(pathOf(confirmLinkIn(message!.raw)!));
  return { email, client };
}

describe('dashboard sign-up and email confirmation', () => {
  it('emails a single-use confirmation link through SMTP and stores only its hash', async () => {
    const email = uniqueEmail();
    const { client, page } = await signUp(email);
    expect(page.status).toBe(303);
    expect(page.location).toBe(`/dashboard/check-email?email=${encodeURIComponent(email)}`);

    const [message] = await mailTo(email);
    expect(message!.raw).toMatch(/^Subject: Confirm your email address/m);
    const link = confirmLinkIn(message!.raw)!;
    expect(link).toBeTruthy();
    const token = new URL(link).searchParams.get('token')!;
    const stored = await emailTokensOf(stack.orm, email);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash).not.toContain(token);
    const account = await partnerByEmail(stack.orm, email);
    expect(account!.password_hash).toMatch(/^\$argon2id\$/);
    expect(account!.password_hash).not.toContain(PASSWORD);

    // Confirmed in another browser (a phone's mail app, say): that browser logs in itself.
    const elsewhere = dashboardClient(stack.baseUrl);
    const first = await elsewhere.confirm(pathOf(link));
    expect(first.status).toBe(303);
    expect(first.location).toBe('/dashboard/login');
    expect((await elsewhere.get(first.location!)).text).toContain('Your email address is confirmed. Log in to create API keys.');
    expect((await partnerByEmail(stack.orm, email))!.confirmed).toBe(true);

    // Used up, in the browser that signed up too.
    const again = await client.get(pathOf(link));
    expect(again.status).toBe(400);
    expect(again.text).toContain('This link does not work any more');
  });

  it('changes nothing when a mail scanner opens the link, so the stranger logged in still cannot make a key', async () => {
    // A stranger signs up with a company's address and logs in; the company's mail scanner then
    // fetches every link of the message, with no cookies.
    const email = uniqueEmail('company');
    const { client: stranger } = await signUp(email, 'the stranger password', 'Stranger Ltd');
    expect((await stranger.logIn(email, 'the stranger password')).status).toBe(303);
    const [message] = await mailTo(email);
    const scanned = await fetch(`${stack.baseUrl}${pathOf(confirmLinkIn(message!.raw)!)}`, { redirect: 'manual' });
    expect(scanned.status).toBe(200);
    expect(await scanned.text()).toContain('Confirm my email address');
    // No session was started, nobody confirmed, the link is not spent.
    expect(scanned.headers.getSetCookie().filter((cookie) => cookie.startsWith('dashboard_sid='))).toEqual([]);
    const account = (await partnerByEmail(stack.orm, email))!;
    expect(account.confirmed).toBe(false);
    expect((await emailTokensOf(stack.orm, email)).map((link) => link.used_at)).toEqual([null]);

    const refused = await stranger.submit('/dashboard/keys', '/dashboard/keys', { label: 'Live server', mode: 'live' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Confirm your email address first');
    expect(await apiKeysOf(stack.orm, account.id)).toEqual([]);
  });

  it('confirms only by the POST of the link’s page, with that page’s CSRF token', async () => {
    const email = uniqueEmail();
    const { client } = await signUp(email);
    const [message] = await mailTo(email);
    const link = pathOf(confirmLinkIn(message!.raw)!);
    const token = new URL(link, stack.baseUrl).searchParams.get('token')!;
    // Even in the browser that signed up, opening the link only shows its button: no log-in yet.
    const page = await client.get(link);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`name="token" value="${token}"`);
    expect(page.text).toContain(email);
    expect((await client.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);

    // Posted without the page's token, as a form on another site would be: refused, nothing changed.
    const forged = await client.post('/dashboard/confirm', { token });
    expect(forged.status).toBe(403);
    expect((await partnerByEmail(stack.orm, email))!.confirmed).toBe(false);
    expect((await emailTokensOf(stack.orm, email)).map((stored) => stored.used_at)).toEqual([null]);

    const confirmed = await client.post('/dashboard/confirm', { _csrf: csrfToken(page.text), token });
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe('/dashboard/keys');
    expect((await partnerByEmail(stack.orm, email))!.confirmed).toBe(true);
    expect((await client.get('/dashboard/keys')).text).toContain('Your email address is confirmed.');
    expect((await client.get(link)).status).toBe(400);
  });

  it('refuses a confirmation link once it has expired', async () => {
    const email = uniqueEmail();
    const { client } = await signUp(email);
    const [message] = await mailTo(email);
    await expireEmailTokensOf(stack.orm, email, { minutes: 1 });
    const page = await client.get(pathOf(confirmLinkIn(message!.raw)!));
    expect(page.status).toBe(400);
    expect((await partnerByEmail(stack.orm, email))!.confirmed).toBe(false);
  });

  it('shows each wrong field with its own message and keeps what was typed', async () => {
    const client = dashboardClient(stack.baseUrl);
    const page = await client.signUp({ email: 'not-an-email', password: 'short', business_name: '' });
    expect(page.status).toBe(400);
    expect(page.text).toMatch(/id="business_name-error">Enter the name of your business/);
    expect(page.text).toMatch(/id="email-error">Enter an email address like name@example.com/);
    expect(page.text).toMatch(/id="password-error">Use at least 10 characters/);
    expect(page.text).toContain('value="not-an-email"');
    expect(page.text).toContain('aria-invalid="true"');
  });

  it('answers a sign-up for a known address exactly as for a new one, and tells the owner instead', async () => {
    const { email } = await confirmedAccount();
    const fresh = await signUp(uniqueEmail());
    const again = await signUp(email, 'another password entirely', 'Impostor Ltd');
    expect(again.page.status).toBe(fresh.page.status);
    expect(again.page.location).toBe(`/dashboard/check-email?email=${encodeURIComponent(email)}`);

    const messages = await mailTo(email, 2);
    expect(messages[1]!.raw).toMatch(/^Subject: Someone tried to sign up with your email address/m);
    expect(confirmLinkIn(messages[1]!.raw)).toBeNull();
    // Nothing about the account changed: the original password still works, the new one does not.
    expect((await dashboardClient(stack.baseUrl).logIn(email, 'another password entirely')).status).toBe(400);
    expect((await dashboardClient(stack.baseUrl).logIn(email, PASSWORD)).status).toBe(303);
  });

  it('answers a log-in with an unknown address exactly as one with a wrong password', async () => {
    const { email } = await confirmedAccount();
    const wrongPassword = await dashboardClient(stack.baseUrl).logIn(email, 'not the password at all');
    const unknown = await dashboardClient(stack.baseUrl).logIn(uniqueEmail('nobody'), 'not the password at all');
    expect(wrongPassword.status).toBe(400);
    expect(unknown.status).toBe(400);
    const message = (text: string) => /id="password-error">([^<]+)</.exec(text)?.[1];
    expect(message(wrongPassword.text)).toBe('The email address or the password is not right');
    expect(message(unknown.text)).toBe(message(wrongPassword.text));
  });

  it('answers a request for a new link the same way whether or not the address has an account', async () => {
    const email = uniqueEmail();
    await signUp(email);
    await mailTo(email);
    const known = await dashboardClient(stack.baseUrl).submit('/dashboard/resend', '/dashboard/resend', { email });
    const unknownEmail = uniqueEmail('nobody');
    const unknown = await dashboardClient(stack.baseUrl).submit('/dashboard/resend', '/dashboard/resend', { email: unknownEmail });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(unknown.text.replace(unknownEmail, 'EMAIL').replace(/value="[^"]*"/g, '')).toBe(
      known.text.replace(email, 'EMAIL').replace(/value="[^"]*"/g, ''),
    );
    const messages = await mailTo(email, 2);
    expect(confirmLinkIn(messages[1]!.raw)).not.toBe(confirmLinkIn(messages[0]!.raw));
  });

  it('logs the browser that signed up in by its confirmation link, so a key follows with no other step', async () => {
    const email = uniqueEmail();
    const { client } = await signUp(email);
    const before = client.jar.get('dashboard_sid');
    const [message] = await mailTo(email);
    const confirmed = await client.confirm(pathOf(confirmLinkIn(message!.raw)!));
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe('/dashboard/keys');
    // A new session id, as at log-in: one planted before sign-up opens nothing.
    expect(client.jar.get('dashboard_sid')).toBeDefined();
    expect(client.jar.get('dashboard_sid')).not.toBe(before);
    const created = await client.submit('/dashboard/keys', '/dashboard/keys', { label: 'Shop server', mode: 'test' });
    expect(created.status).toBe(201);
    expect(created.text).toMatch(/value="sk_test_[A-Za-z0-9]+"/);
    // Logged in already, the log-in page still offers its form (to use another account).
    const login = await client.get('/dashboard/login');
    expect(login.status).toBe(200);
    expect(login.text).toContain('name="password"');
  });

  it('confirms a link opened in another browser but logs that browser in to nothing', async () => {
    const email = uniqueEmail();
    await signUp(email);
    const [message] = await mailTo(email);
    const elsewhere = dashboardClient(stack.baseUrl);
    const confirmed = await elsewhere.confirm(pathOf(confirmLinkIn(message!.raw)!));
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe('/dashboard/login');
    expect((await partnerByEmail(stack.orm, email))!.confirmed).toBe(true);
    expect((await elsewhere.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);
    // A sign-up in a browser for an address that has an account leaves that browser no way in either.
    const again = dashboardClient(stack.baseUrl);
    await again.signUp({ email, password: 'another long password', business_name: 'Someone Else' });
    expect(again.jar.get('dashboard_sid')).toBeDefined();
    expect((await again.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);
  });

  it('lets an unconfirmed business log in but not create a key until it confirms', async () => {
    const email = uniqueEmail();
    const { client } = await signUp(email);
    expect((await client.logIn(email, PASSWORD)).location).toBe('/dashboard');
    const keysPage = await client.get('/dashboard/keys');
    expect(keysPage.text).toContain('Confirm your email address first');

    const refused = await client.submit('/dashboard/keys', '/dashboard/keys', { label: 'Shop server', mode: 'test' });
    expect(refused.status).toBe(400);
    const keysOfOwner = async () => apiKeysOf(stack.orm, (await partnerByEmail(stack.orm, email))!.id);
    expect(await keysOfOwner()).toHaveLength(0);

    const [message] = await mailTo(email);
    const confirmed = await client.confirm(pathOf(confirmLinkIn(message!.raw)!));
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe('/dashboard/keys');

    const created = await client.submit('/dashboard/keys', '/dashboard/keys', { label: 'Shop server', mode: 'test' });
    expect(created.status).toBe(201);
    const secret = /value="(sk_test_[A-Za-z0-9]+)"/.exec(created.text)?.[1];
    expect(secret).toBeDefined();
    expect(await keysOfOwner()).toHaveLength(1);
    // Shown once: the list afterwards carries only the prefix.
    const later = await client.get('/dashboard/keys');
    expect(later.text).not.toContain(secret!);
    expect(later.text).toContain(`${secret!.slice(0, 12)}…`);
  });

  it('ends the session on log-out, so the old cookie opens nothing', async () => {
    const { email, client } = await confirmedAccount();
    await client.logIn(email, PASSWORD);
    const stolen = new Map(client.jar);
    expect((await client.get('/dashboard/keys')).status).toBe(200);
    const out = await client.submit('/dashboard', '/dashboard/logout');
    expect(out.location).toBe('/dashboard/login');

    const replay = dashboardClient(stack.baseUrl);
    for (const [name, value] of stolen) replay.jar.set(name, value);
    const page = await replay.get('/dashboard/keys');
    expect(page.status).toBe(303);
    expect(page.location).toMatch(/^\/dashboard\/login\?next=/);
  });

  it('writes the confirmation message in plain words with the link on a line of its own', async () => {
    const email = uniqueEmail();
    await signUp(email, PASSWORD, 'Osu Bakery');
    const [message] = await mailTo(email);
    const body = readableText(message!.raw);
    expect(body).toContain('Hello Osu Bakery,');
    expect(body).toMatch(/\r?\n(https?:\/\/\S+\/dashboard\/confirm\?token=\S+)\r?\n/);
    expect(body).toContain('expires in 24 hours');
  });
});

describe('dashboard log-in rate limit', () => {
  let limited: TestStack;
  beforeAll(async () => {
    limited = await startTestStack({ withoutWorker: true, env: { RATE_LIMIT_AUTH_PER_MINUTE: '3' } });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('slows down repeated log-in attempts from one address', async () => {
    const client = dashboardClient(limited.baseUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await client.logIn('someone@example.com', `guess number ${i}`)).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
  });
});

describe('dashboard mail without SMTP', () => {
  let offline: TestStack;
  let mailDir: string;
  beforeAll(async () => {
    mailDir = await mkdtemp(path.join(tmpdir(), 'dashboard-mail-'));
    offline = await startTestStack({ withoutWorker: true, env: { MAIL_DIR: mailDir, RATE_LIMIT_AUTH_PER_MINUTE: '1000' } });
  });
  afterAll(async () => {
    await offline?.close();
    await rm(mailDir, { recursive: true, force: true });
  });

  it('writes an .eml file whose confirmation link can be read as it stands, not cut by quoted-printable', async () => {
    const email = uniqueEmail();
    const client = dashboardClient(offline.baseUrl);
    await client.signUp({ email, password: PASSWORD, business_name: 'Kofi’s Kitchen' });
    const [raw] = await eventually(async () => {
      const messages = await mailsTo(mailDir, email);
      return messages.length ? messages : undefined;
    }, 10_000, 'confirmation .eml');
    expect(raw).toMatch(/^Content-Type: text\/plain; charset=utf-8$/m);
    expect(raw).toMatch(/^Content-Transfer-Encoding: 8bit$/m);
    expect(raw).toContain('Hello Kofi’s Kitchen,');
    // The link as a person copies it out of the file, or a script finds it with a plain pattern.
    const link = /^(https?:\/\/\S+\/dashboard\/confirm\?token=[A-Za-z0-9_-]+)$/m.exec(raw!)?.[1];
    expect(link).toBe(`${offline.settings.siteUrl}${pathOf(link!)}`);
    const confirmed = await client.confirm(pathOf(link!));
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe('/dashboard/keys');
  });
});
