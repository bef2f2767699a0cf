import { createHmac } from 'node:crypto';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { startTestStack, type TestStack } from '../helpers/stack';
import { confirmLinkIn, mailsTo, pathOf, uniqueEmail } from '../helpers/dashboard';
import { api, eventually } from '../helpers/http';
import { book } from '../helpers/bookings';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server';

/** Screenshots of every page at a phone's size, kept for people to look at (gitignored). */
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/dashboard');
const PHONE = { width: 390, height: 844 };

let stack: TestStack;
let mailDir: string;
let browser: Browser;
let context: BrowserContext;
let receiver: RecordingServer;
const problems: string[] = [];

beforeAll(async () => {
  mailDir = await mkdtemp(path.join(tmpdir(), 'dashboard-mail-'));
  await mkdir(ARTIFACTS, { recursive: true });
  stack = await startTestStack({ env: { MAIL_DIR: mailDir, RATE_LIMIT_AUTH_PER_MINUTE: '1000' } });
  receiver = await startRecordingServer();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
}, 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await receiver?.close();
  await stack?.close();
  await rm(mailDir, { recursive: true, force: true });
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * Fails on anything the browser itself complains of: a CSP violation, a script error, a missing
 * asset. Pages answering 4xx on purpose (a form with errors) are documents, not assets.
 */
function watch(page: Page): void {
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.request().resourceType() !== 'document' && response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
}

describe('a business finds its way from sign-up to its first delivery in a phone browser', () => {
  it('signs up, confirms, logs in, creates a key, books, and receives a test callback', async () => {
    const page = await context.newPage();
    watch(page);
    const email = uniqueEmail('kofi');
    const password = 'kente-cloth-2026';
    const url = (p: string) => `${stack.baseUrl}${p}`;

    // Sign up: a first attempt with nothing filled in shows each problem next to its field.
    await page.goto(url('/dashboard/signup'));
    await shot(page, '01-signup');
    // The first Tab stop lets keyboard users skip the header.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForSelector('.error-summary');
    expect(await page.evaluate("document.activeElement.classList.contains('error-summary')")).toBe(true);
    expect(await page.locator('#email-error').textContent()).toBe('Enter your email address');
    await shot(page, '02-signup-errors');

    await page.getByLabel('Business name').fill('Kofi’s Kitchen');
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/dashboard\/check-email/);
    await shot(page, '03-check-email');

    // Confirm from the .eml file the development mailer wrote.
    const [message] = await eventually(async () => {
      const messages = await mailsTo(mailDir, email);
      return messages.length ? messages : undefined;
    }, 10_000, 'confirmation .eml');
    const link = confirmLinkIn(message!)!;
    // The link opens a page that changes nothing (mail scanners open links too); its button,
    // pressed in the browser that signed up, confirms and logs it in: keys come next.
    await page.goto(url(pathOf(link)));
    await page.getByRole('heading', { name: 'Confirm your email address' }).waitFor();
    await shot(page, '04-confirm');
    await page.getByRole('button', { name: 'Confirm my email address' }).click();
    await page.waitForURL(url('/dashboard/keys'));
    await page.getByText('Your email address is confirmed.').waitFor();
    await shot(page, '04-confirmed');

    // Log out, then in again by keyboard alone.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/dashboard\/login/);
    await shot(page, '05-login');
    await page.getByLabel('Email address').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await page.waitForURL(url('/dashboard'));
    await page.getByRole('heading', { name: 'Welcome, Kofi’s Kitchen' }).waitFor();
    await shot(page, '06-overview');
    // Where deliveries may go: each area of the service drawn on the map, and named on it.
    await page.getByRole('heading', { name: 'Where we deliver' }).waitFor();
    await page.locator('#service-area-map path.leaflet-interactive').nth(1).waitFor();
    expect(await page.locator('#service-area-map path.leaflet-interactive').count()).toBe(2);
    expect(await page.locator('#service-area-map .area-label').allTextContents()).toEqual(['Greater Accra', 'Kumasi']);
    await page.locator('#service-area-map').screenshot({ path: path.join(ARTIFACTS, '06-service-area.png') });

    // A test key, shown once, with a working Copy button.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Label').fill('Kitchen server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.locator('#new-key').inputValue();
    expect(secret).toMatch(/^sk_test_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.locator('[data-copy-status="new-key"]', { hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await shot(page, '07-key-created');

    // The Mobile Money account that pays for deliveries, registered on the dashboard.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Mobile Money' }).click();
    await page.getByRole('button', { name: 'Register account' }).click();
    await page.waitForSelector('.error-summary');
    await shot(page, '08-mobile-money-errors');
    await page.getByLabel('Network A').check();
    await page.getByLabel('Mobile Money number').fill('+233241230001');
    await page.getByLabel('Account holder name').fill('Kofi Mensah');
    await page.getByRole('button', { name: 'Register account' }).click();
    await page.getByText('+233241230001 is registered').waitFor();
    await shot(page, '09-mobile-money');

    // Book over the API with the key, as the business's server would, and find it in the list.
    const booked = await book(stack.baseUrl, secret);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Deliveries' }).click();
    await page.getByRole('link', { name: booked.reference }).waitFor();
    await shot(page, '10-deliveries');
    await eventually(async () => (await api(stack.baseUrl, secret).get(`/partner/deliveries/${booked.id}`)).body.status === 'delivered', 20_000, 'delivered');
    await page.getByRole('link', { name: booked.reference }).click();
    await page.getByRole('heading', { name: `Delivery ${booked.reference}` }).waitFor();
    expect(await page.locator('#tracking-link').inputValue()).toBe(`${stack.settings.siteUrl}/track?id=${booked.id}`);
    await shot(page, '11-delivery');

    // A webhook to a local receiver, and a signed test event that arrives there.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhook' }).click();
    await page.getByRole('textbox', { name: 'Callback URL' }).fill('not a url');
    await page.getByRole('button', { name: 'Save URL' }).click();
    await page.waitForSelector('#webhook_url-error');
    await shot(page, '12-webhook-error');
    await page.getByRole('textbox', { name: 'Callback URL' }).fill(`${receiver.url}/deliveries`);
    await page.getByRole('button', { name: 'Save URL' }).click();
    const signingSecret = await page.locator('#webhook-secret').inputValue();
    expect(signingSecret).toMatch(/^whsec_/);
    await shot(page, '13-webhook-secret');
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText('Test event sent.').waitFor();
    const arrived = await eventually(
      async () => receiver.requests.find((c) => c.headers['x-service-event'] === 'webhook.test'),
      10_000,
      'test callback at the receiver',
    );
    expect(arrived.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', signingSecret).update(arrived.body).digest('hex')}`);
    await eventually(async () => {
      await page.reload();
      return (await page.getByText('HTTP 200').count()) > 0;
    }, 10_000, 'attempt in the log');
    await shot(page, '14-webhook-log');

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Welcome, Kofi’s Kitchen' }).waitFor();
    await shot(page, '15-overview-done');
    expect(await page.locator('.step.done').count()).toBe(5);

    // The same pages on a desktop screen.
    await page.setViewportSize({ width: 1280, height: 900 });
    for (const [name, pathname] of [
      ['desktop-overview', '/dashboard'],
      ['desktop-keys', '/dashboard/keys'],
      ['desktop-deliveries', '/dashboard/deliveries?status=delivered'],
      ['desktop-webhook', '/dashboard/webhook'],
    ]) {
      await page.goto(url(pathname!));
      await shot(page, name!);
    }
    await page.setViewportSize(PHONE);

    // The pages for things gone wrong: a tampered form, and a delivery that is not there.
    await page.goto(url('/dashboard/keys'));
    await page.evaluate("document.querySelector('form[action=\\'/dashboard/keys\\'] input[name=_csrf]').value = 'tampered'");
    await page.getByLabel('Label').fill('Forged');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'This form has expired' }).waitFor();
    await shot(page, '17-form-expired');
    await page.goto(url('/dashboard/deliveries/00000000-0000-4000-8000-000000000000'));
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await shot(page, '18-not-found');

    await page.goto(url('/dashboard'));
    await page.getByRole('button', { name: 'Show live data' }).click();
    await page.getByText('Showing live data.').waitFor();
    await shot(page, '16-live-mode');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/dashboard\/login/);
    await page.goto(url('/dashboard/keys'));
    await page.waitForURL(/\/dashboard\/login\?next=/);

    expect(problems).toEqual([]);
  }, 120_000);
});
