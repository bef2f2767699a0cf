import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestStack, type TestStack } from '../helpers/stack';
import { api } from '../helpers/http';
import { dashboardClient } from '../helpers/dashboard';
import { apiKeysOf, namesLongerThan, partnerByEmail, partnersWithEmailStarting } from '../helpers/db-accounts';
import { expireRiderSignIns, expireRiderToken, riderIdsNamed, riderRow, riderSignInsOf, riderTokenDaysLeft } from '../helpers/db-riders';
import { putInOutbox } from '../helpers/db-texts';
import { RIDER_AUTH_CACHE_MS, RIDER_TOKEN_CHANGES_READ_EVERY_MS } from '../../api/middleware/rider-auth';
import { hashSecret } from '../../domain/api-key';
import { ops } from '../helpers/operator-commands';

const run = promisify(execFile);

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ withoutWorker: true });
});
afterAll(async () => {
  await stack?.close();
});

describe('operator commands', () => {
  it('creates a confirmed partner and a working test key, each printed as one JSON object', async () => {
    const email = `ops-${Date.now()}@example.com`;
    const partner = await ops('partner:create', '--email', email, '--business', 'Ops Shop Ltd');
    expect(partner).toEqual({ partner_id: expect.any(String), email });
    const key = await ops('key:create', '--partner', partner.partner_id, '--label', 'server', '--test');
    expect(key).toEqual({ key_id: expect.any(String), api_key: expect.stringMatching(/^sk_test_/) });
    const live = await ops('key:create', '--partner', partner.partner_id, '--label', 'server');
    expect(live.api_key).toMatch(/^sk_live_/);
    const res = await api(stack.baseUrl, key.api_key).get('/partner/payment-methods');
    expect(res.status).toBe(200);
  }, 60_000);

  it('creates a partner with the password given, who then logs in to the dashboard with it', async () => {
    const email = `ops-login-${Date.now()}@example.com`;
    await ops('partner:create', '--email', email, '--business', 'Ops Login Ltd', '--password', 'a long enough password');
    const stored = await partnerByEmail(stack.orm, email);
    expect(stored!.password_hash).toMatch(/^\$argon2id\$/);
    expect((await dashboardClient(stack.baseUrl).logIn(email, 'another password entirely')).status).toBe(400);
    expect((await dashboardClient(stack.baseUrl).logIn(email, 'a long enough password')).location).toBe('/dashboard');
  }, 60_000);

  it('prints its usage on --help without a database, and refuses an unknown command', async () => {
    const env = { ...process.env, DATABASE_URL: '', STACK_DATA_DIR: '/nonexistent' };
    const help = await run('npm', ['run', '--silent', 'ops', '--', '--help'], { env });
    // The usage line, then one line a command.
    expect(help.stdout).toMatch(/^Usage: npm run ops -- <command>\n( {2}[a-z:-]+( .+)?\n)+$/);
    expect(help.stdout).toContain('\n  partner:clear-unpaid --partner ID [--test]\n');
    const unknown = await run('npm', ['run', '--silent', 'ops', '--', 'partner:delete'], { env }).catch((error: { code: number; stdout: string }) => error);
    expect(unknown).toMatchObject({ code: 2 });
    expect(JSON.parse((unknown as { stdout: string }).stdout).error).toMatch(/^Unknown command partner:delete/);
  }, 60_000);

  it('creates a rider whose token works on the rider API', async () => {
    const rider = await ops('rider:create', '--name', 'Kojo Asante', '--vehicle', 'Honda Ace', '--lat', '5.55', '--lng', '-0.2');
    expect(rider).toEqual({
      rider_id: expect.any(String),
      rider_token: expect.stringMatching(/^rk_/),
      sign_in_url: expect.stringMatching(/\/rider\/sign-in#[A-Za-z0-9_-]{32}$/),
      sign_in_expires_at: expect.any(String),
    });
    const res = await api(stack.baseUrl, rider.rider_token).put('/rider/availability', { online: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ online: true });
  }, 60_000);

  it('records a rider’s own phone for masked calling, as a Ghana mobile number, and refuses anything else', async () => {
    const rider = await ops('rider:create', '--name', 'Kweku Phone', '--phone', '024 555 0199');
    const row = await riderRow(stack.orm, rider.rider_id);
    expect(row!.phone).toBe('+233245550199');
    expect(JSON.stringify(rider)).not.toContain('245550199');
    const refused = await run('npm', ['run', '--silent', 'ops', '--', 'rider:create', '--name', 'Kweku Landline', '--phone', '12345'], {
      env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL },
    }).catch((error: { code: number; stdout: string }) => error);
    expect(refused).toMatchObject({ code: 2 });
    expect(JSON.parse(refused.stdout)).toEqual({ error: '--phone must be a Ghana mobile number like +233241234567' });
  }, 60_000);

  it('keeps only a hash of a rider token, whose expiry is RIDER_TOKEN_DAYS away', async () => {
    const rider = await ops('rider:create', '--name', 'Efua Hash');
    const row = await riderRow(stack.orm, rider.rider_id);
    expect(row!.token_hash).toBe(hashSecret(rider.rider_token));
    expect(row!.token_hash).not.toContain(rider.rider_token);
    expect(await riderTokenDaysLeft(stack.orm, rider.rider_id)).toBe(30);
    const shorter = await run('npm', ['run', '--silent', 'ops', '--', 'rider:create', '--name', 'Efua Week'], {
      env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL, RIDER_TOKEN_DAYS: '7' },
    });
    const week = JSON.parse(shorter.stdout);
    expect(await riderTokenDaysLeft(stack.orm, week.rider_id)).toBe(7);
  }, 60_000);

  it('refuses an expired rider token with 401 in the error envelope', async () => {
    const rider = await ops('rider:create', '--name', 'Yaw Expired');
    await expireRiderToken(stack.orm, rider.rider_id, { seconds: 1 });
    const res = await api(stack.baseUrl, rider.rider_token).get('/rider/offers');
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/expired/) });
  }, 60_000);

  /** How long a token change takes to reach the API's cache: one read of the changes, and the read itself. */
  const TOKEN_CHANGE_HEARD_MS = 2 * RIDER_TOKEN_CHANGES_READ_EVERY_MS + 500;

  it('rotates a rider token: the new one works and the old one is refused within about a second, well inside the auth cache time', async () => {
    const rider = await ops('rider:create', '--name', 'Akua Rotate');
    const old = api(stack.baseUrl, rider.rider_token);
    expect((await old.get('/rider/offers')).status).toBe(200);
    const rotated = await ops('rider:token', '--rider', rider.rider_id);
    expect(rotated).toEqual({
      rider_id: rider.rider_id,
      rider_token: expect.stringMatching(/^rk_/),
      sign_in_url: expect.stringMatching(/\/rider\/sign-in#/),
      sign_in_expires_at: expect.any(String),
    });
    expect(rotated.rider_token).not.toBe(rider.rider_token);
    expect((await api(stack.baseUrl, rotated.rider_token).get('/rider/offers')).status).toBe(200);
    expect(TOKEN_CHANGE_HEARD_MS).toBeLessThan(RIDER_AUTH_CACHE_MS);
    await new Promise((resolve) => setTimeout(resolve, TOKEN_CHANGE_HEARD_MS));
    const refused = await old.get('/rider/offers');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
  }, 60_000);

  it('revokes a rider token, refused within about a second although the API had it cached', async () => {
    const rider = await ops('rider:create', '--name', 'Kwesi Revoke');
    const app = api(stack.baseUrl, rider.rider_token);
    expect((await app.get('/rider/offers')).status).toBe(200);
    expect(await ops('rider:revoke', '--rider', rider.rider_id)).toEqual({ rider_id: rider.rider_id, revoked: true });
    await new Promise((resolve) => setTimeout(resolve, TOKEN_CHANGE_HEARD_MS));
    const refused = await app.get('/rider/offers');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
    const unknown = await run('npm', ['run', '--silent', 'ops', '--', 'rider:revoke', '--rider', '00000000-0000-4000-8000-000000000000'], {
      env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL },
    }).catch((error: { code: number; stdout: string }) => error);
    expect(unknown).toMatchObject({ code: 2 });
  }, 60_000);

  it('prints a one-time sign-in link and its QR code; the link gives the rider app a token once', async () => {
    const { stdout, stderr } = await run('npm', ['run', '--silent', 'ops', '--', 'rider:create', '--name', 'Adwoa Link'], {
      env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL, SITE_URL: 'http://192.168.1.20:3000' },
    });
    const rider = JSON.parse(stdout);
    expect(rider.sign_in_url).toMatch(/^http:\/\/192\.168\.1\.20:3000\/rider\/sign-in#[A-Za-z0-9_-]{32}$/);
    const hoursLeft = (Date.parse(rider.sign_in_expires_at) - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(23.9);
    expect(hoursLeft).toBeLessThanOrEqual(24);
    // The QR code goes to the terminal (stderr), in half-block characters, with the link under it.
    expect(stderr).toContain(rider.sign_in_url);
    expect(stderr).toMatch(/[▀▄█]/);
    const code = rider.sign_in_url.split('#')[1];
    const [stored] = await riderSignInsOf(stack.orm, rider.rider_id);
    expect(stored!.code_hash).toBe(hashSecret(code));

    const signedIn = await api(stack.baseUrl).post('/rider/sign-in', { code });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toEqual({ rider_id: rider.rider_id, rider_token: expect.stringMatching(/^rk_live_/) });
    expect((await api(stack.baseUrl, signedIn.body.rider_token).get('/rider/offers')).status).toBe(200);

    const again = await api(stack.baseUrl).post('/rider/sign-in', { code });
    expect(again.status).toBe(401);
    expect(again.body.error).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/already used/), details: { reason: 'used' } });

    const later = await ops('rider:token', '--rider', rider.rider_id);
    await expireRiderSignIns(stack.orm, rider.rider_id, { seconds: 1 });
    const expired = await api(stack.baseUrl).post('/rider/sign-in', { code: later.sign_in_url.split('#')[1] });
    expect(expired.status).toBe(401);
    expect(expired.body.error.details).toEqual({ reason: 'expired' });
    const unknown = await api(stack.baseUrl).post('/rider/sign-in', { code: 'A'.repeat(32) });
    expect(unknown.body.error.details).toEqual({ reason: 'unknown' });
    const malformed = await api(stack.baseUrl).post('/rider/sign-in', { code: 'short' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('bad_request');
  }, 60_000);

  it('reads the SMS outbox for a number, newest first', async () => {
    const to = `+23320${String(Date.now()).slice(-7)}`;
    await putInOutbox(stack.orm, to, 'first', { minutes: 1 });
    await putInOutbox(stack.orm, to, 'second');
    const outbox = await ops('outbox', '--to', to);
    expect(outbox.messages.map((m: { body: string }) => m.body)).toEqual(['second', 'first']);
    expect(outbox.messages[0]).toEqual({ to, body: 'second', created_at: expect.any(String) });
  }, 60_000);

  it('finds a number’s texts however an operator writes it, and refuses what is no phone number', async () => {
    const to = `+23324${String(Date.now()).slice(-7)}`;
    await putInOutbox(stack.orm, to, 'your code');
    const local = `0${to.slice(4)}`;
    for (const written of [local, `${local.slice(0, 3)} ${local.slice(3, 6)} ${local.slice(6)}`, to.slice(1)]) {
      const outbox = await ops('outbox', '--to', written);
      expect(outbox).toEqual({ messages: [{ to, body: 'your code', created_at: expect.any(String) }] });
    }
    const refused = await run('npm', ['run', '--silent', 'ops', '--', 'outbox', '--to', 'kofi'], {
      env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL },
    }).catch((error: { code: number; stdout: string }) => error);
    expect(refused).toMatchObject({ code: 2 });
    expect(JSON.parse((refused as { stdout: string }).stdout).error).toMatch(/--to .*phone number/);
  }, 60_000);

  it('holds what an operator types to the API’s limits, explains a refusal and stores nothing', async () => {
    const partner = await ops('partner:create', '--email', `ops-limits-${Date.now()}@example.com`, '--business', 'B'.repeat(100));
    const longest = await ops('key:create', '--partner', partner.partner_id, '--label', 'L'.repeat(100));
    expect(longest.api_key).toMatch(/^sk_live_/);
    const name = `Refused ${Date.now()}`;
    const refusals: [string[], RegExp][] = [
      [['partner:create', '--email', 'not-an-email', '--business', 'Shop'], /email address/],
      [['partner:create', '--email', `ops-long-${Date.now()}@example.com`, '--business', 'B'.repeat(101)], /at most 100/],
      [['partner:create', '--email', `ops-pw-${Date.now()}@example.com`, '--business', 'Shop', '--password', 'short'], /password/],
      [['key:create', '--partner', 'not-a-uuid', '--label', 'server'], /^Unknown partner$/],
      [['key:create', '--partner', partner.partner_id, '--label', 'L'.repeat(101)], /at most 100/],
      [['rider:create', '--name', 'N'.repeat(101)], /at most 100/],
      [['rider:create', '--name', name, '--lat', '95', '--lng', '0'], /±90/],
      [['rider:create', '--name', name, '--lat', '5.55'], /together/],
      [['rider:create', '--name', name, '--lat', ' ', '--lng', ''], /together/],
    ];
    // Side by side: each is a process of its own, and they touch different rows.
    const outcomes = await Promise.all(
      refusals.map(([args]) =>
        run('npm', ['run', '--silent', 'ops', '--', ...args], { env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL } }).then(
          () => null,
          (error: { code: number; stdout: string }) => error,
        ),
      ),
    );
    outcomes.forEach((failed, i) => {
      expect(failed?.code).toBe(2);
      expect(JSON.parse(failed!.stdout.trim().split('\n').pop()!).error).toMatch(refusals[i]![1]);
    });
    expect(await riderIdsNamed(stack.orm, name)).toEqual([]);
    expect(await partnerByEmail(stack.orm, 'not-an-email')).toBeUndefined();
    expect(await partnersWithEmailStarting(stack.orm, 'ops-long-')).toEqual([]);
    expect(await partnersWithEmailStarting(stack.orm, 'ops-pw-')).toEqual([]);
    expect(await namesLongerThan(stack.orm, 100)).toEqual({ partners: [], riders: [] });
    expect((await apiKeysOf(stack.orm, partner.partner_id)).map((k) => k.label)).toEqual(['L'.repeat(100)]);
  }, 120_000);
});
