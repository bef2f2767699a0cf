import { createPartner } from '../../db/accounts';
import { hashPassword } from '../../api/dashboard/passwords';
import { startTestStack, type TestStack } from '../helpers/stack';
import { csrfToken, dashboardClient, uniqueEmail } from '../helpers/dashboard';
import { api } from '../helpers/http';
import { apiKeyRow, apiKeysOf, dashboardSessionPartner } from '../helpers/db-accounts';

const PASSWORD = 'correct horse battery';

/** A confirmed account with a password, made directly (sign-up itself is covered elsewhere). */
async function account(stack: TestStack) {
  const email = uniqueEmail();
  const { partnerId } = await createPartner(stack.orm.em.fork(), {
    email,
    businessName: 'Tema Hardware',
    passwordHash: await hashPassword(PASSWORD),
    confirmed: true,
  });
  const client = dashboardClient(stack.baseUrl);
  const login = await client.logIn(email, PASSWORD);
  if (login.status !== 303) throw new Error(`log-in failed: ${login.status}`);
  return { email, partnerId, client };
}

describe('dashboard security', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ withoutWorker: true, env: { RATE_LIMIT_AUTH_PER_MINUTE: '1000' } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('refuses a form posted without its CSRF token and changes nothing', async () => {
    const { client, partnerId } = await account(stack);
    const page = await client.post('/dashboard/keys', { label: 'Forged', mode: 'live' });
    expect(page.status).toBe(403);
    expect(page.text).toContain('This form has expired');
    expect(page.text).toContain('Nothing was changed');
    expect(await apiKeysOf(stack.orm, partnerId)).toEqual([]);
  });

  it('refuses a CSRF token taken from another session', async () => {
    const victim = await account(stack);
    const attacker = await account(stack);
    const attackerToken = csrfToken((await attacker.client.get('/dashboard/keys')).text);
    const page = await victim.client.post('/dashboard/keys', { _csrf: attackerToken, label: 'Forged', mode: 'live' });
    expect(page.status).toBe(403);
    expect(await apiKeysOf(stack.orm, victim.partnerId)).toEqual([]);
  });

  it('refuses a token sent without its cookie, as a cross-site form would', async () => {
    const { client, partnerId } = await account(stack);
    const token = csrfToken((await client.get('/dashboard/keys')).text);
    client.jar.delete('dashboard_csrf');
    const page = await client.post('/dashboard/keys', { _csrf: token, label: 'Forged', mode: 'test' });
    expect(page.status).toBe(403);
    expect(await apiKeysOf(stack.orm, partnerId)).toEqual([]);
  });

  it('answers a form in a charset or an encoding it cannot read with 415 and a page, not a 500, and changes nothing', async () => {
    const { client, partnerId } = await account(stack);
    const token = csrfToken((await client.get('/dashboard/keys')).text);
    const cookie = [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const form = new URLSearchParams({ _csrf: token, label: 'Server', mode: 'test' }).toString();
    const refused: Record<string, string>[] = [
      { 'content-type': 'application/x-www-form-urlencoded; charset=latin1' },
      { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'compress' },
    ];
    for (const headers of refused) {
      const res = await fetch(`${stack.baseUrl}/dashboard/keys`, { method: 'POST', redirect: 'manual', headers: { cookie, ...headers }, body: form });
      expect(res.status).toBe(415);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('The form could not be read');
    }
    expect(await apiKeysOf(stack.orm, partnerId)).toEqual([]);
  });

  it('refuses a log-in form posted without its CSRF token', async () => {
    const { email } = await account(stack);
    const page = await dashboardClient(stack.baseUrl).post('/dashboard/login', { email, password: PASSWORD });
    expect(page.status).toBe(403);
  });

  it('refuses a revoked key on the API at once', async () => {
    const { client } = await account(stack);
    const created = await client.submit('/dashboard/keys', '/dashboard/keys', { label: 'Till', mode: 'test' });
    expect(created.status).toBe(201);
    const secret = /value="(sk_test_[A-Za-z0-9]+)"/.exec(created.text)![1]!;
    expect((await api(stack.baseUrl, secret).get('/partner/payment-methods')).status).toBe(200);

    const keyId = /action="\/dashboard\/keys\/([0-9a-f-]{36})\/revoke"/.exec(created.text)![1]!;
    const revoked = await client.submit('/dashboard/keys', `/dashboard/keys/${keyId}/revoke`);
    expect(revoked.status).toBe(303);
    const list = await client.get('/dashboard/keys');
    expect(list.text).toContain('Key revoked');
    expect(list.text).toContain('Revoked');

    const refused = await api(stack.baseUrl, secret).get('/partner/payment-methods');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
  });

  it('cannot revoke another business’s key', async () => {
    const owner = await account(stack);
    const created = await owner.client.submit('/dashboard/keys', '/dashboard/keys', { label: 'Mine', mode: 'test' });
    const keyId = /action="\/dashboard\/keys\/([0-9a-f-]{36})\/revoke"/.exec(created.text)![1]!;
    const other = await account(stack);
    const page = await other.client.submit('/dashboard/keys', `/dashboard/keys/${keyId}/revoke`);
    expect(page.status).toBe(404);
    expect((await apiKeyRow(stack.orm, keyId))!.revoked).toBe(false);
  });

  it('sends a strict same-origin content policy and keeps pages out of caches', async () => {
    const page = await dashboardClient(stack.baseUrl).get('/dashboard/login');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.text).not.toMatch(/<script>|style="|\son[a-z]+="/);
  });

  it('sets the session cookie httpOnly, SameSite=Lax and scoped to the dashboard', async () => {
    const email = uniqueEmail();
    await createPartner(stack.orm.em.fork(), { email, businessName: 'Ho Market', passwordHash: await hashPassword(PASSWORD), confirmed: true });
    const client = dashboardClient(stack.baseUrl);
    const token = csrfToken((await client.get('/dashboard/login')).text);
    const response = await fetch(`${stack.baseUrl}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      body: new URLSearchParams({ _csrf: token, email, password: PASSWORD }).toString(),
    });
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('dashboard_sid='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\/dashboard/);
    const sid = decodeURIComponent(cookie.split(';')[0]!.split('=')[1]!).replace(/^s:/, '').split('.')[0]!;
    expect(await dashboardSessionPartner(stack.orm, sid)).toEqual(expect.any(String));
  });

  it('shows a business name full of markup as plain text', async () => {
    const email = uniqueEmail();
    const name = '<img src=x onerror=alert(1)> & "Sons"';
    await createPartner(stack.orm.em.fork(), { email, businessName: name, passwordHash: await hashPassword(PASSWORD), confirmed: true });
    const client = dashboardClient(stack.baseUrl);
    await client.logIn(email, PASSWORD);
    const page = await client.get('/dashboard');
    expect(page.text).toContain('Welcome, &lt;img src=x onerror=alert(1)&gt; &amp; &quot;Sons&quot;');
    expect(page.text).not.toContain('<img src=x');
  });

  it('never sends anyone outside the dashboard after log-in', async () => {
    const email = uniqueEmail();
    await createPartner(stack.orm.em.fork(), { email, businessName: 'Cape Coast Fish', passwordHash: await hashPassword(PASSWORD), confirmed: true });
    const client = dashboardClient(stack.baseUrl);
    const page = await client.submit('/dashboard/login?next=https://evil.example.com/', '/dashboard/login', {
      email,
      password: PASSWORD,
      next: 'https://evil.example.com/',
    });
    expect(page.location).toBe('/dashboard');
  });
});

describe('dashboard session expiry', () => {
  // The store keeps expiry times to the second, rounded up: waiting TTL + 1.2 s is past it in every case.
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ withoutWorker: true, env: { DASHBOARD_SESSION_SECONDS: '2', RATE_LIMIT_AUTH_PER_MINUTE: '1000' } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('ends an idle session and sends the next visit to log-in with a note saying why', async () => {
    const { client } = await account(stack);
    expect((await client.get('/dashboard/keys')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3_200));

    const page = await client.get('/dashboard/keys');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/dashboard/login?next=%2Fdashboard%2Fkeys&expired=1');
    const login = await client.get(page.location!);
    expect(login.text).toContain('Your session has ended');
  });

  it('sends a browser that never logged in to log-in without saying a session ended', async () => {
    // Signed up here, confirmed from the email on another device: this browser holds a live
    // session cookie, but nobody was ever logged in with it.
    const client = dashboardClient(stack.baseUrl);
    const signedUp = await client.signUp({ email: uniqueEmail(), password: PASSWORD, business_name: 'Tema Hardware' });
    expect(signedUp.status).toBe(303);
    expect(client.jar.size).toBeGreaterThan(0);

    const page = await client.get('/dashboard/keys');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/dashboard/login?next=%2Fdashboard%2Fkeys');
    expect((await client.get(page.location!)).text).not.toContain('Your session has ended');
  });

  it('sends a form posted after the session ended to log-in, changing nothing', async () => {
    const { client, partnerId } = await account(stack);
    const token = csrfToken((await client.get('/dashboard/keys')).text);
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    const page = await client.post('/dashboard/keys', { _csrf: token, label: 'Late', mode: 'test' });
    expect(page.status).toBe(303);
    expect(page.location).toMatch(/^\/dashboard\/login\?/);
    expect(await apiKeysOf(stack.orm, partnerId)).toEqual([]);
  });
});
