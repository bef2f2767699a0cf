import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPartner } from '../../db/accounts';
import { hashPassword } from '../../api/dashboard/passwords';
import { startTestStack, type TestStack } from '../helpers/stack';
import { SANDBOX } from '../helpers/bookings';
import { confirmLinkIn, dashboardClient, mailsTo, pathOf, readableText, uniqueEmail } from '../helpers/dashboard';
import { api, eventually } from '../helpers/http';
import { apiKeyRow, apiKeysOf, emailTokensHashed, expireEmailToken, keyOfUnconfirmedPartner, partnerByEmail } from '../helpers/db-accounts';
import { paymentMethodsOf } from '../helpers/db-payments';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

function resetLinkIn(message: string): string | null {
  return /https?:\/\/\S+\/dashboard\/reset-password\?token=[A-Za-z0-9_-]+/.exec(readableText(message))?.[0] ?? null;
}

describe('dashboard accounts: confirmation first, the mailbox owner wins, passwords', () => {
  let stack: TestStack;
  let mailDir: string;

  beforeAll(async () => {
    mailDir = await mkdtemp(path.join(tmpdir(), 'dashboard-passwords-'));
    stack = await startTestStack({ withoutWorker: true, env: { MAIL_DIR: mailDir, RATE_LIMIT_AUTH_PER_MINUTE: '1000' } });
  });
  afterAll(async () => {
    await stack?.close();
    await rm(mailDir, { recursive: true, force: true });
  });

  /** A confirmed account with a password, logged in in a browser of its own. */
  async function confirmedAccount() {
    const email = uniqueEmail();
    const { partnerId } = await createPartner(stack.orm.em.fork(), { email, businessName: 'Tema Hardware', passwordHash: await hashPassword(PASSWORD), confirmed: true });
    const client = dashboardClient(stack.baseUrl);
    expect((await client.logIn(email, PASSWORD)).status).toBe(303);
    return { email, partnerId, client };
  }

  /** The reset link of the newest mail to `email`; it is sent after the answer, so it may take a moment. */
  async function lastResetLink(email: string): Promise<string> {
    const link = await eventually(async () => resetLinkIn((await mailsTo(mailDir, email)).at(-1) ?? '') ?? undefined, 10_000, `reset link to ${email}`);
    return pathOf(link);
  }

  describe('before the email address is confirmed', () => {
    it('shows a page asking to confirm first instead of Mobile Money accounts or live mode', async () => {
      const email = uniqueEmail();
      const client = dashboardClient(stack.baseUrl);
      await client.signUp({ email, password: PASSWORD, business_name: 'Not Yet Ltd' });
      expect((await client.logIn(email, PASSWORD)).status).toBe(303);
      const partnerId = (await partnerByEmail(stack.orm, email))!.id;

      const list = await client.get('/dashboard/payment-methods');
      expect(list.status).toBe(403);
      expect(list.text).toContain('Confirm your email address first');

      const registered = await client.submit('/dashboard', '/dashboard/payment-methods', { provider: 'network_a', phone: SANDBOX.named, account_name: 'Anyone' });
      expect(registered.status).toBe(403);
      expect(await paymentMethodsOf(stack.orm, partnerId)).toEqual([]);

      const live = await client.submit('/dashboard', '/dashboard/mode', { mode: 'live', back: '/dashboard' });
      expect(live.status).toBe(403);
      expect(live.text).toContain('Confirm your email address first');
      // Still showing test data: the switch in the header still offers live.
      expect((await client.get('/dashboard')).text).toMatch(/name="mode" value="live"/);

      const key = await client.submit('/dashboard/keys', '/dashboard/keys', { label: 'Live server', mode: 'live' });
      expect(key.status).toBe(400);
      expect(await apiKeysOf(stack.orm, partnerId)).toEqual([]);

      // Once confirmed, the same pages open.
      const [message] = await mailsTo(mailDir, email);
      await client.confirm(pathOf(confirmLinkIn(message!)!));
      expect((await client.get('/dashboard/payment-methods')).status).toBe(200);
      expect((await client.submit('/dashboard', '/dashboard/mode', { mode: 'live', back: '/dashboard' })).status).toBe(303);
    });
  });

  it('lets the owner of the mailbox win over a stranger who signed up first with the address', async () => {
    const email = uniqueEmail();
    const stranger = dashboardClient(stack.baseUrl);
    await stranger.signUp({ email, password: 'the stranger password', business_name: 'Stranger Ltd' });
    expect((await stranger.logIn(email, 'the stranger password')).status).toBe(303);

    const owner = dashboardClient(stack.baseUrl);
    await owner.signUp({ email, password: NEW_PASSWORD, business_name: 'Owner Shop' });

    const messages = await mailsTo(mailDir, email);
    expect(messages).toHaveLength(2);
    // The link mailed for the stranger's sign-up no longer confirms anything.
    expect((await dashboardClient(stack.baseUrl).get(pathOf(confirmLinkIn(messages[0]!)!))).status).toBe(400);
    const confirmed = await owner.confirm(pathOf(confirmLinkIn(messages[1]!)!));
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe('/dashboard/keys');
    expect((await owner.get('/dashboard')).text).toContain('Owner Shop');

    expect((await dashboardClient(stack.baseUrl).logIn(email, NEW_PASSWORD)).status).toBe(303);
    expect((await dashboardClient(stack.baseUrl).logIn(email, 'the stranger password')).status).toBe(400);
    // The stranger's session was ended with its password.
    expect((await stranger.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);
  });

  describe('when a stranger signs up with the address after its owner', () => {
    /** The owner signs up, then a stranger with the same address, who logs in as the pending account. */
    async function contestedByALaterStranger() {
      const email = uniqueEmail();
      const owner = dashboardClient(stack.baseUrl);
      await owner.signUp({ email, password: PASSWORD, business_name: 'Owner Shop' });
      const stranger = dashboardClient(stack.baseUrl);
      await stranger.signUp({ email, password: 'the stranger password', business_name: 'Stranger Ltd' });
      expect((await stranger.logIn(email, 'the stranger password')).status).toBe(303);
      const messages = await mailsTo(mailDir, email);
      expect(messages).toHaveLength(2);
      const link = pathOf(confirmLinkIn(messages[1]!)!);
      const token = new URL(link, stack.baseUrl).searchParams.get('token')!;
      return { email, owner, stranger, messages, link, token };
    }

    const confirmedInDatabase = async (email: string) => (await partnerByEmail(stack.orm, email))?.confirmed === true;

    it('lets the owner, opening the link in a fresh browser, choose the password: the stranger is out', async () => {
      const { email, stranger, messages, link, token } = await contestedByALaterStranger();
      // The owner's first link was spent by the stranger's sign-up.
      expect((await dashboardClient(stack.baseUrl).get(pathOf(confirmLinkIn(messages[0]!)!))).status).toBe(400);

      // The owner's sessions ended with the stranger's sign-up, so the link opens in a browser that
      // made no sign-up: it confirms nothing, and asks for a password instead.
      const reader = dashboardClient(stack.baseUrl);
      const form = await reader.get(link);
      expect(form.status).toBe(200);
      expect(form.text).toContain('Choose your password');
      expect(form.text).toContain(`value="${token}"`);
      expect(await confirmedInDatabase(email)).toBe(false);

      const done = await reader.submit(link, '/dashboard/confirm', { token, business_name: 'Owner Shop', password: NEW_PASSWORD });
      expect(done.status).toBe(303);
      expect(done.location).toBe('/dashboard/keys');
      expect(await confirmedInDatabase(email)).toBe(true);
      const keys = await reader.get('/dashboard/keys');
      expect(keys.status).toBe(200);
      expect(keys.text).toContain('Your password is saved and your email address is confirmed.');
      expect((await reader.submit('/dashboard/keys', '/dashboard/keys', { label: 'Shop server', mode: 'test' })).status).toBe(201);
      expect((await reader.get('/dashboard')).text).toContain('Owner Shop');

      // The stranger's password opens nothing, and the stranger's browser was logged out.
      expect((await dashboardClient(stack.baseUrl).logIn(email, 'the stranger password')).status).toBe(400);
      expect((await stranger.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);
      expect((await dashboardClient(stack.baseUrl).logIn(email, NEW_PASSWORD)).status).toBe(303);

      // Single use: neither the link nor its form works again.
      expect((await dashboardClient(stack.baseUrl).get(link)).status).toBe(400);
      const replay = await dashboardClient(stack.baseUrl).submit('/dashboard/login', '/dashboard/confirm', { token, business_name: 'Stranger Ltd', password: 'the stranger password' });
      expect(replay.status).toBe(400);
      expect(replay.text).toContain('This link does not work any more');
      expect((await dashboardClient(stack.baseUrl).logIn(email, NEW_PASSWORD)).status).toBe(303);
    });

    it('changes nothing for a password form without its CSRF token, too short a password or an expired link', async () => {
      const { email, link, token } = await contestedByALaterStranger();
      const reader = dashboardClient(stack.baseUrl);
      await reader.get(link);
      const forged = await reader.post('/dashboard/confirm', { token, business_name: 'Owner Shop', password: NEW_PASSWORD });
      expect(forged.status).toBe(403);

      const short = await reader.submit(link, '/dashboard/confirm', { token, business_name: 'Owner Shop', password: 'short' });
      expect(short.status).toBe(400);
      expect(short.text).toMatch(/id="password-error">Use at least 10 characters/);
      expect(short.text).toContain(`value="${token}"`);
      expect(await confirmedInDatabase(email)).toBe(false);

      await expireEmailToken(stack.orm, createHash('sha256').update(token).digest('hex'), { seconds: 1 });
      const late = await reader.submit('/dashboard/login', '/dashboard/confirm', { token, business_name: 'Owner Shop', password: NEW_PASSWORD });
      expect(late.status).toBe(400);
      expect(late.text).toContain('This link does not work any more');
      expect(await confirmedInDatabase(email)).toBe(false);
      expect((await dashboardClient(stack.baseUrl).logIn(email, NEW_PASSWORD)).status).toBe(400);
    });

    it('still confirms in one click in the browser of the latest sign-up', async () => {
      const { email, stranger, link } = await contestedByALaterStranger();
      // The owner signs up once more: now the latest sign-up, and the stranger's session ends.
      const owner = dashboardClient(stack.baseUrl);
      await owner.signUp({ email, password: NEW_PASSWORD, business_name: 'Owner Shop' });
      expect((await dashboardClient(stack.baseUrl).get(link)).status).toBe(400);
      const latest = pathOf(confirmLinkIn((await mailsTo(mailDir, email))[2]!)!);
      const confirmed = await owner.confirm(latest);
      expect(confirmed.status).toBe(303);
      expect(confirmed.location).toBe('/dashboard/keys');
      expect((await stranger.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);
      expect((await dashboardClient(stack.baseUrl).logIn(email, NEW_PASSWORD)).status).toBe(303);
    });

    /** A working key the pending account holds from before, as a stranger's would be. */
    async function keyHeldFromBefore(email: string) {
      const partnerId = (await partnerByEmail(stack.orm, email))!.id;
      const held = await keyOfUnconfirmedPartner(stack.orm, partnerId, 'live');
      expect((await api(stack.baseUrl, held.apiKey).get('/partner/payment-methods')).status).toBe(200);
      return { partnerId, ...held };
    }

    it('revokes every key made before and ends every session when the reader of the mailbox chooses the password', async () => {
      const { email, stranger, link, token } = await contestedByALaterStranger();
      const held = await keyHeldFromBefore(email);

      const reader = dashboardClient(stack.baseUrl);
      const done = await reader.submit(link, '/dashboard/confirm', { token, business_name: 'Owner Shop', password: NEW_PASSWORD });
      expect(done.location).toBe('/dashboard/keys');
      expect((await apiKeyRow(stack.orm, held.keyId))!.revoked).toBe(true);
      expect((await api(stack.baseUrl, held.apiKey).get('/partner/payment-methods')).status).toBe(401);
      expect((await stranger.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);

      // Keys made after the confirmation are the owner's and stay.
      expect((await reader.submit('/dashboard/keys', '/dashboard/keys', { label: 'Shop server', mode: 'live' })).status).toBe(201);
      expect((await apiKeysOf(stack.orm, held.partnerId)).map((key) => key.revoked)).toEqual([true, false]);
    });

    it('revokes every key made before and ends every other session when the latest sign-up confirms in its browser', async () => {
      const { email, stranger } = await contestedByALaterStranger();
      const owner = dashboardClient(stack.baseUrl);
      await owner.signUp({ email, password: NEW_PASSWORD, business_name: 'Owner Shop' });
      // Another browser logged in with the newest password (someone who saw it typed, say).
      const onlooker = dashboardClient(stack.baseUrl);
      expect((await onlooker.logIn(email, NEW_PASSWORD)).status).toBe(303);
      const held = await keyHeldFromBefore(email);

      const latest = pathOf(confirmLinkIn((await mailsTo(mailDir, email))[2]!)!);
      const confirmed = await owner.confirm(latest);
      expect(confirmed.location).toBe('/dashboard/keys');
      expect((await onlooker.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);
      expect((await apiKeyRow(stack.orm, held.keyId))!.revoked).toBe(true);
      expect((await api(stack.baseUrl, held.apiKey).get('/partner/payment-methods')).status).toBe(401);
      expect((await stranger.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);
      expect((await owner.get('/dashboard/keys')).status).toBe(200);
    });
  });

  it('confirms an address signed up for only once in one click, in any browser', async () => {
    const email = uniqueEmail();
    await dashboardClient(stack.baseUrl).signUp({ email, password: PASSWORD, business_name: 'Only Once Ltd' });
    const [message] = await mailsTo(mailDir, email);
    const confirmed = await dashboardClient(stack.baseUrl).confirm(pathOf(confirmLinkIn(message!)!));
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe('/dashboard/login');
    expect((await partnerByEmail(stack.orm, email))?.confirmed).toBe(true);
  });

  describe('password reset by email', () => {
    it('answers the same whether or not the address has an account, and mails only a known one', async () => {
      const { email } = await confirmedAccount();
      const nobody = uniqueEmail('nobody');
      const known = await dashboardClient(stack.baseUrl).submit('/dashboard/forgot-password', '/dashboard/forgot-password', { email });
      const unknown = await dashboardClient(stack.baseUrl).submit('/dashboard/forgot-password', '/dashboard/forgot-password', { email: nobody });
      expect(known.status).toBe(200);
      expect(unknown.status).toBe(200);
      const strip = (text: string, address: string) => text.replaceAll(address, 'EMAIL').replace(/value="[^"]*"/g, '');
      expect(strip(unknown.text, nobody)).toBe(strip(known.text, email));
      expect(known.text).toContain('If an account uses');
      await lastResetLink(email);
      expect(await mailsTo(mailDir, nobody)).toHaveLength(0);
    });

    it('sets a new password by a single-use link stored only as a hash, and logs every other browser out', async () => {
      const { email, client: loggedIn } = await confirmedAccount();
      const requester = dashboardClient(stack.baseUrl);
      await requester.submit('/dashboard/forgot-password', '/dashboard/forgot-password', { email });
      const link = await lastResetLink(email);
      const token = new URL(link, stack.baseUrl).searchParams.get('token')!;
      expect(await emailTokensHashed(stack.orm, token)).toEqual([]);
      expect(await emailTokensHashed(stack.orm, createHash('sha256').update(token).digest('hex'))).toHaveLength(1);

      const done = await requester.submit(link, '/dashboard/reset-password', { token, password: NEW_PASSWORD });
      expect(done.status).toBe(303);
      expect(done.location).toBe('/dashboard/keys/review');
      // Every session ended; the browser that chose the password is logged in afresh.
      expect((await loggedIn.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);
      expect((await requester.get('/dashboard/keys')).status).toBe(200);
      expect((await dashboardClient(stack.baseUrl).logIn(email, PASSWORD)).status).toBe(400);
      expect((await dashboardClient(stack.baseUrl).logIn(email, NEW_PASSWORD)).status).toBe(303);

      // Used once, the link works no more.
      const again = await dashboardClient(stack.baseUrl).get(link);
      expect(again.status).toBe(400);
      expect(again.text).toContain('This link does not work any more');
    });

    it('lands on every key of the account, live and test, with a button to revoke each', async () => {
      const { email, partnerId, client: intruder } = await confirmedAccount();
      // Someone logged in as the account made a live key; the owner's own test key is there too.
      const live = await intruder.submit('/dashboard/keys', '/dashboard/keys', { label: 'Not mine', mode: 'live' });
      const liveSecret = /value="(sk_live_[A-Za-z0-9]+)"/.exec(live.text)![1]!;
      expect((await intruder.submit('/dashboard/keys', '/dashboard/keys', { label: 'Shop server', mode: 'test' })).status).toBe(201);
      const [liveKey] = await apiKeysOf(stack.orm, partnerId, 'live');
      const [testKey] = await apiKeysOf(stack.orm, partnerId, 'test');

      const owner = dashboardClient(stack.baseUrl);
      await owner.submit('/dashboard/forgot-password', '/dashboard/forgot-password', { email });
      const link = await lastResetLink(email);
      const token = new URL(link, stack.baseUrl).searchParams.get('token')!;
      const done = await owner.submit(link, '/dashboard/reset-password', { token, password: NEW_PASSWORD });
      expect(done.location).toBe('/dashboard/keys/review');
      expect((await intruder.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);

      const review = await owner.get(done.location!);
      expect(review.status).toBe(200);
      expect(review.text).toContain('Your password is changed and every other browser is logged out.');
      for (const key of [liveKey!, testKey!]) {
        expect(review.text).toContain(key.label);
        expect(review.text).toContain(`action="/dashboard/keys/${key.id}/revoke"`);
      }
      expect(review.text).toContain('name="back" value="/dashboard/keys/review"');

      // Revoked from there, the key is refused at once and the owner is back on the review.
      const revoked = await owner.submit(done.location!, `/dashboard/keys/${liveKey!.id}/revoke`, { back: '/dashboard/keys/review' });
      expect(revoked.location).toBe('/dashboard/keys/review');
      expect((await apiKeyRow(stack.orm, liveKey!.id))!.revoked).toBe(true);
      expect((await api(stack.baseUrl, liveSecret).get('/partner/payment-methods')).status).toBe(401);
      expect((await apiKeyRow(stack.orm, testKey!.id))!.revoked).toBe(false);
    });

    it('refuses an expired reset link', async () => {
      const { email } = await confirmedAccount();
      const client = dashboardClient(stack.baseUrl);
      await client.submit('/dashboard/forgot-password', '/dashboard/forgot-password', { email });
      const link = await lastResetLink(email);
      const token = new URL(link, stack.baseUrl).searchParams.get('token')!;
      await expireEmailToken(stack.orm, createHash('sha256').update(token).digest('hex'), { seconds: 1 });
      expect((await client.get(link)).status).toBe(400);
      const late = await client.submit('/dashboard/forgot-password', '/dashboard/reset-password', { token, password: NEW_PASSWORD });
      expect(late.status).toBe(400);
      expect(late.text).toContain('This link does not work any more');
      expect((await dashboardClient(stack.baseUrl).logIn(email, PASSWORD)).status).toBe(303);
    });
  });

  describe('change of password', () => {
    it('needs the current password, and logs out the other browsers but not this one', async () => {
      const { email, client } = await confirmedAccount();
      const other = dashboardClient(stack.baseUrl);
      expect((await other.logIn(email, PASSWORD)).status).toBe(303);

      const wrong = await client.submit('/dashboard/account/password', '/dashboard/account/password', { current_password: 'not my password', password: NEW_PASSWORD });
      expect(wrong.status).toBe(400);
      expect(wrong.text).toContain('This is not your current password');
      expect((await dashboardClient(stack.baseUrl).logIn(email, PASSWORD)).status).toBe(303);

      const changed = await client.submit('/dashboard/account/password', '/dashboard/account/password', { current_password: PASSWORD, password: NEW_PASSWORD });
      expect(changed.status).toBe(303);
      expect((await client.get('/dashboard/keys')).status).toBe(200);
      expect((await other.get('/dashboard/keys')).location).toMatch(/^\/dashboard\/login\?next=/);
      expect((await dashboardClient(stack.baseUrl).logIn(email, NEW_PASSWORD)).status).toBe(303);
    });

    it('refuses the form without its CSRF token and changes nothing', async () => {
      const { email, client } = await confirmedAccount();
      const page = await client.post('/dashboard/account/password', { current_password: PASSWORD, password: NEW_PASSWORD });
      expect(page.status).toBe(403);
      expect((await dashboardClient(stack.baseUrl).logIn(email, PASSWORD)).status).toBe(303);
    });
  });

  it('answers a 20 kB hostile email address with a 400 in well under a second', async () => {
    const hostile = `a@${'.'.repeat(19_000)}@`;
    for (const [pagePath, action, fields] of [
      ['/dashboard/signup', '/dashboard/signup', { business_name: 'Dots', password: PASSWORD }],
      ['/dashboard/resend', '/dashboard/resend', {}],
      ['/dashboard/forgot-password', '/dashboard/forgot-password', {}],
    ] as const) {
      const client = dashboardClient(stack.baseUrl);
      const started = Date.now();
      const page = await client.submit(pagePath, action, { ...fields, email: hostile });
      expect(page.status).toBe(400);
      expect(Date.now() - started).toBeLessThan(1_000);
    }
  });
});

describe('dashboard password forms under the log-in rate limit', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ withoutWorker: true, env: { RATE_LIMIT_AUTH_PER_MINUTE: '2' } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('slows repeated reset requests down as it does log-ins', async () => {
    const client = dashboardClient(stack.baseUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      statuses.push((await client.submit('/dashboard/forgot-password', '/dashboard/forgot-password', { email: uniqueEmail('nobody') })).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});
