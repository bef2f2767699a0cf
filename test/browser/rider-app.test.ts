import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { operatorCommands } from '../helpers/operator-commands';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, registerAccount, stopBody } from '../helpers/bookings';
import { startTestReceiver, type TestReceiver } from '../helpers/webhook-test-receiver';
import { handoverPhotosOf } from '../helpers/db-deliveries';
import { riderRow, setRider } from '../helpers/db-riders';
import { readOutbox } from '../../db/sms-outbox';
import { RIDER_TOKEN_CHANGES_READ_EVERY_MS } from '../../api/middleware/rider-auth';

/** Screenshots of every screen at a small Android phone's size, kept for people to look at (gitignored). */
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/rider-app');
const PHONE = { width: 360, height: 640 };
/** The budget for a first load on mobile data, map tiles excluded. */
const FIRST_LOAD_BUDGET_BYTES = 150_000;

let stack: TestStack;
let browser: Browser;
let receiver: TestReceiver;
let partner: Awaited<ReturnType<typeof makePartner>>;
const problems: string[] = [];

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  stack = await startTestStack();
  receiver = await startTestReceiver();
  partner = await makePartner(stack.orm, 'Rider App Shop');
  await registerAccount(stack.baseUrl, partner.liveKey);
  await receiver.subscribe(stack.baseUrl, partner.liveKey);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await stack?.close();
});

/** An operator command, with the API's address for the sign-in link. */
const ops = (...args: string[]) => operatorCommands({ SITE_URL: stack.baseUrl }).ops(...args);

/** A phone at Makola Market, its position shared with the app unless `geolocation` is false. */
async function phone(geolocation = true, options: { blockServiceWorker?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    // Requests a service worker passes on cannot be routed by the test: blocked where the test routes.
    ...(options.blockServiceWorker ? { serviceWorkers: 'block' as const } : {}),
    viewport: PHONE,
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: 'en-GB',
    ...(geolocation ? { geolocation: { latitude: ACCRA.makola.lat, longitude: ACCRA.makola.lng, accuracy: 10 } } : {}),
  });
  if (geolocation) await context.grantPermissions(['geolocation'], { origin: stack.baseUrl });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { context, page };
}

/**
 * Every visible text whose contrast with the background behind it is under 7:1 (WCAG AAA), which
 * is what stays readable on a phone in the midday sun.
 */
const LOW_CONTRAST = `(() => {
  const channel = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  const luminance = (color) => {
    const [r, g, b] = color.match(/[\\d.]+/g).slice(0, 3).map(Number).map(channel);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const opaque = (color) => !/rgba\\(.*,\\s*0\\)$/.test(color) && color !== 'transparent';
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) if (opaque(getComputedStyle(e).backgroundColor)) return getComputedStyle(e).backgroundColor;
    return 'rgb(255, 255, 255)';
  };
  const faults = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const [light, dark] = [luminance(getComputedStyle(el).color), luminance(background(el))].sort((a, b) => b - a);
    const ratio = (light + 0.05) / (dark + 0.05);
    if (ratio < 7) faults.push(ratio.toFixed(2) + ' ' + el.tagName + '#' + el.id + ': ' + node.textContent.trim().slice(0, 40));
  }
  return faults;
})()`;

/** A screenshot of the screen as the rider sees it; nothing may stick out sideways at 360 px, and every text is readable. */
async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
  expect([name, await page.evaluate<string[]>(LOW_CONTRAST)]).toEqual([name, []]);
}

async function statusOf(deliveryId: string): Promise<string> {
  return (await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${deliveryId}`)).body.status;
}

/** The code texted to a recipient for this delivery (the SMS outbox of the offline default). */
async function codeFor(phoneNumber: string, reference: string): Promise<string> {
  const message = await eventually(
    async () => (await readOutbox(stack.orm.em.fork(), phoneNumber)).find((m) => m.body.includes(reference)),
    15_000,
    `code texted to ${phoneNumber}`,
  );
  return /(\d{6})$/.exec(message.body)![1]!;
}

async function typeCode(page: Page, code: string): Promise<void> {
  for (const digit of code) await page.locator(`#keypad button[data-key="${digit}"]`).tap();
}

/** The statuses the partner's webhook receiver was handed for a delivery, in arrival order. */
function webhooksFor(deliveryId: string): string[] {
  return receiver.handled.filter((c) => c.delivery_id === deliveryId).map((c) => c.status);
}

async function waitForWebhook(deliveryId: string, status: string): Promise<void> {
  await eventually(async () => webhooksFor(deliveryId).includes(status), 15_000, `webhook ${status} of ${deliveryId}`);
}

let uniquePhone = Number(String(Date.now()).slice(-7));
const recipientPhone = () => `+23324${String(uniquePhone++).padStart(7, '0')}`;

/** The width and height of a JPEG, from its start-of-frame marker. */
function jpegSize(bytes: Buffer): { width: number; height: number } {
  for (let i = 2; i < bytes.length - 9; ) {
    if (bytes[i] !== 0xff) throw new Error('not a JPEG marker');
    const marker = bytes[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xc2) return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
    i += 2 + bytes.readUInt16BE(i + 2);
  }
  throw new Error('no frame in JPEG');
}

describe('the rider app in a phone browser', () => {
  it('signs in by link, goes online, takes offers and delivers once with a code and once with a photo', async () => {
    const rider = await ops('rider:create', '--name', 'Kwaku Rider', '--vehicle', 'Honda Ace');
    expect(rider.sign_in_url).toMatch(new RegExp(`^${stack.baseUrl}/rider/sign-in#[A-Za-z0-9_-]{32}$`));
    const { context, page } = await phone();

    // First load, from the operator's link: every byte the phone fetched, map tiles excluded.
    const firstLoad: Request[] = [];
    const onFinished = (request: Request) => firstLoad.push(request);
    context.on('requestfinished', onFinished);
    await page.goto(rider.sign_in_url);
    await page.getByRole('switch', { name: 'Go online' }).waitFor();
    await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
    await page.waitForLoadState('networkidle');
    context.off('requestfinished', onFinished);
    const sizes = await Promise.all(
      firstLoad.map(async (r) => ({ url: r.url(), ...(await r.sizes()) })),
    );
    // A response from the HTTP cache reports its headers' size negated as its body: nothing crossed the network.
    const transferred = sizes.reduce((sum, s) => {
      const received = s.responseBodySize + s.responseHeadersSize;
      return received <= 0 ? sum : sum + received + s.requestHeadersSize + s.requestBodySize;
    }, 0);
    process.stdout.write(`rider app first load: ${transferred} bytes in ${sizes.length} requests\n`);
    expect(transferred).toBeLessThan(FIRST_LOAD_BUDGET_BYTES);
    // The code left the address bar once used.
    expect(page.url()).toBe(`${stack.baseUrl}/rider/`);
    await page.getByText('You are offline', { exact: true }).waitFor();
    await shot(page, '01-signed-in');

    // Later loads come from the service worker's cache.
    const fromWorker = new Map<string, boolean>();
    page.on('response', (response) => fromWorker.set(new URL(response.url()).pathname, response.fromServiceWorker()));
    await page.reload();
    await page.getByRole('switch', { name: 'Go online' }).waitFor();
    for (const file of ['/rider/', '/rider/app.js', '/rider/strings.js', '/rider/app.css', '/rider/leaflet/leaflet.js']) {
      expect([file, fromWorker.get(file)]).toEqual([file, true]);
    }

    // The link worked once: opened again, it signs nobody in and says why.
    const again = await phone();
    await again.page.goto(rider.sign_in_url);
    await again.page.getByText('This sign-in link was already used. Ask your operator for a new one.').waitFor();
    await shot(again.page, '02-link-already-used');
    await again.context.close();

    // Online: the position reaches the API.
    await page.getByRole('switch', { name: 'Go online' }).tap();
    await page.getByText('You are online', { exact: true }).waitFor();
    await page.getByText(/^Position sent/).waitFor();
    await eventually(
      async () => {
        const row = await riderRow(stack.orm, rider.rider_id);
        return row!.online && row!.lat === ACCRA.makola.lat && row!.lng === ACCRA.makola.lng;
      },
      10_000,
      'the rider online at the phone’s position',
    );
    await shot(page, '03-online');

    // The network drops: the phone says so, keeps only its newest position and sends it on return.
    await context.setOffline(true);
    await page.locator('#offline-banner').waitFor();
    await context.setGeolocation({ latitude: ACCRA.makola.lat + 0.001, longitude: ACCRA.makola.lng, accuracy: 10 });
    await context.setGeolocation({ latitude: ACCRA.makola.lat + 0.002, longitude: ACCRA.makola.lng, accuracy: 10 });
    await page.getByText('Position kept; it will be sent when the network returns.').waitFor();
    await shot(page, '04-offline');
    await context.setOffline(false);
    await page.locator('#offline-banner').waitFor({ state: 'hidden' });
    await eventually(
      async () => {
        const row = await riderRow(stack.orm, rider.rider_id);
        return row!.lat === ACCRA.makola.lat + 0.002;
      },
      10_000,
      'the newest position after the network returned',
    );
    await context.setGeolocation({ latitude: ACCRA.makola.lat, longitude: ACCRA.makola.lng, accuracy: 10 });

    // 1. A code at each door: one additional stop, then the final drop-off.
    const finalPhone = recipientPhone();
    const stopPhone = recipientPhone();
    const withCode = await book(stack.baseUrl, partner.liveKey, {
      verification_method: 'otp',
      recipient_phone: finalPhone,
      package_description: 'Two boxes of kenkey, keep upright',
      additional_stops: [stopBody({ recipient_phone: stopPhone, recipient_name: 'Yaw Boateng', package_description: 'Blue bag' })],
    });
    const offer = page.locator(`li.offer[data-delivery-id="${withCode.id}"]`);
    await offer.waitFor({ timeout: 20_000 });
    const offerText = await offer.innerText();
    expect(offerText).toContain('Makola Market, Accra');
    expect(offerText.indexOf('Osu Oxford Street, Accra')).toBeLessThan(offerText.indexOf('Kotoka International Airport, Accra'));
    expect(offerText).toContain(`${withCode.distance_km} km trip`);
    expect(offerText).toContain('Package: small');
    expect(offerText).toContain('Two boxes of kenkey, keep upright');
    expect(await offer.locator('.leaflet-container .pin').count()).toBe(3);
    await shot(page, '05-offer');

    await offer.getByRole('button', { name: 'Accept' }).tap();
    await page.getByText('Go to the pickup').waitFor();
    await waitForWebhook(withCode.id, 'accepted');
    expect(await page.locator('#navigate').getAttribute('href')).toMatch(new RegExp(`^geo:${ACCRA.makola.lat},${ACCRA.makola.lng}\\?q=`));
    await shot(page, '06-job-pickup');

    await page.getByRole('button', { name: 'Picked up' }).tap();
    await page.getByText('You have the parcel').waitFor();
    await waitForWebhook(withCode.id, 'picked_up');
    // The recipient is called through a masked number, never their own.
    const call = page.locator('#call');
    await call.waitFor();
    expect(await call.innerText()).toBe('Call Yaw Boateng');
    const dialled = (await call.getAttribute('href'))!;
    expect(dialled).toMatch(/^tel:\+?\d+$/);
    expect(dialled).not.toContain(stopPhone.slice(4));
    await shot(page, '07-job-picked-up');

    await page.getByRole('button', { name: 'On my way' }).tap();
    await page.getByText('On the way', { exact: true }).waitFor();
    await waitForWebhook(withCode.id, 'in_transit');
    await page.getByText('Stop 1: deliver to Yaw Boateng').waitFor();

    // A wrong code is refused in words; the right one completes the stop.
    const stopCode = await codeFor(stopPhone, withCode.reference);
    await typeCode(page, stopCode === '000000' ? '111111' : '000000');
    await shot(page, '08-otp-keypad');
    await page.getByRole('button', { name: 'Stop done' }).tap();
    await page.getByText('That code is not right. Ask the recipient to read the code in their text message again.').waitFor();
    await shot(page, '09-otp-wrong');
    await typeCode(page, stopCode);
    await page.getByRole('button', { name: 'Stop done' }).tap();
    await page.getByText('1 of 1 stops done').waitFor();
    await page.getByText('Deliver to Ama Serwaa Mensah').waitFor();
    await shot(page, '10-stop-done');

    await typeCode(page, await codeFor(finalPhone, withCode.reference));
    await page.getByRole('button', { name: 'Delivered' }).tap();
    await page.getByText('Delivered. Well done!').waitFor();
    await waitForWebhook(withCode.id, 'delivered');
    expect(webhooksFor(withCode.id)).toEqual(['accepted', 'picked_up', 'in_transit', 'delivered']);
    await shot(page, '11-delivered');
    await page.getByRole('button', { name: 'Back to offers' }).tap();

    // 2. A photo at the door, taken with the (fake) camera and downscaled on the phone.
    const withPhoto = await book(stack.baseUrl, partner.liveKey, { verification_method: 'photo', recipient_phone: recipientPhone() });
    const photoOffer = page.locator(`li.offer[data-delivery-id="${withPhoto.id}"]`);
    await photoOffer.waitFor({ timeout: 20_000 });
    await photoOffer.getByRole('button', { name: 'Accept' }).tap();
    await page.getByRole('button', { name: 'Picked up' }).tap();
    await page.getByRole('button', { name: 'On my way' }).tap();
    await page.getByText('Take a photo of the parcel handed over to Ama Serwaa Mensah.').waitFor();
    // Sending without a photo says what to do.
    await page.getByRole('button', { name: 'Delivered' }).tap();
    await page.getByText('Take a photo first.').waitFor();
    const camera = Buffer.from(
      await page.evaluate<string>(`(() => {
        const canvas = document.createElement('canvas');
        canvas.width = 3000;
        canvas.height = 2000;
        const g = canvas.getContext('2d');
        for (let i = 0; i < 40; i++) {
          g.fillStyle = 'hsl(' + i * 9 + ', 70%, 50%)';
          g.fillRect((i * 73) % 3000, (i * 51) % 2000, 400, 300);
        }
        return canvas.toDataURL('image/jpeg', 0.95).split(',')[1];
      })()`),
      'base64',
    );
    expect(jpegSize(camera)).toEqual({ width: 3000, height: 2000 });
    await page.locator('#photo-input').setInputFiles({ name: 'IMG_0001.jpg', mimeType: 'image/jpeg', buffer: camera });
    await page.locator('#photo-preview').waitFor();
    await shot(page, '12-photo');
    await page.getByRole('button', { name: 'Delivered' }).tap();
    await page.getByText('Delivered. Well done!').waitFor();
    await waitForWebhook(withPhoto.id, 'delivered');
    expect(webhooksFor(withPhoto.id)).toEqual(['accepted', 'picked_up', 'in_transit', 'delivered']);
    expect(await statusOf(withPhoto.id)).toBe('delivered');
    const [stored] = await handoverPhotosOf(stack.orm, withPhoto.id);
    expect(stored!.content_type).toBe('image/jpeg');
    const uploaded = (await stack.deps.photos.get(stored!.storage_key))!;
    expect(jpegSize(uploaded)).toEqual({ width: 1280, height: 853 });
    expect(uploaded.length).toBeLessThan(camera.length / 4);
    await shot(page, '13-delivered-photo');
    await page.getByRole('button', { name: 'Back to offers' }).tap();

    // Signing out takes the rider offline, forgets the token and says so.
    await page.getByRole('button', { name: 'Sign out' }).tap();
    await page.getByText('You signed out.', { exact: true }).waitFor();
    expect(await page.evaluate<string | null>("localStorage.getItem('rider.token')")).toBeNull();
    expect(await riderRow(stack.orm, rider.rider_id)).toMatchObject({ online: false });
    await shot(page, '14-signed-out');

    // A new link (rider:token) signs in again; a revoked token sends the app back to sign-in, saying why.
    const renewed = await ops('rider:token', '--rider', rider.rider_id);
    await page.goto(renewed.sign_in_url);
    await page.getByRole('switch', { name: 'Go online' }).tap();
    await page.getByText('You are online', { exact: true }).waitFor();
    expect(await ops('rider:revoke', '--rider', rider.rider_id)).toEqual({ rider_id: rider.rider_id, revoked: true });
    await page
      .getByText('You were signed out: your sign-in was stopped by an operator, or this account was signed in on another phone.', { exact: false })
      .waitFor({ timeout: RIDER_TOKEN_CHANGES_READ_EVERY_MS + 15_000 });
    await shot(page, '15-revoked');
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);

  it('tells a rider in plain words when another rider took the offer first', async () => {
    const rider = await ops('rider:create', '--name', 'Esi Second');
    const { context, page } = await phone(true, { blockServiceWorker: true });
    await page.goto(rider.sign_in_url);
    await page.getByRole('switch', { name: 'Go online' }).tap();
    await page.getByText('You are online', { exact: true }).waitFor();
    const rival = await makeRider(stack.orm, ACCRA.makola, 'Rival Rider');
    const contested = await book(stack.baseUrl, partner.liveKey, { recipient_phone: recipientPhone() });
    const card = page.locator(`li.offer[data-delivery-id="${contested.id}"]`);
    await card.waitFor({ timeout: 20_000 });
    // The list stays as the rider saw it while the rival is quicker.
    const token = (await page.evaluate<string | null>("localStorage.getItem('rider.token')"))!;
    const seen = JSON.stringify((await api(stack.baseUrl, token).get('/rider/offers')).body);
    let frozen = true;
    await page.route('**/api/v1/rider/offers', (route) => (frozen ? route.fulfill({ status: 200, contentType: 'application/json', body: seen }) : route.continue()));
    await eventually(
      async () => (await api(stack.baseUrl, rival.riderToken).get('/rider/offers')).body.some((o: { delivery_id: string }) => o.delivery_id === contested.id),
      15_000,
      'the offer to the rival',
    );
    expect((await api(stack.baseUrl, rival.riderToken).post(`/rider/deliveries/${contested.id}/accept`)).status).toBe(200);
    await card.getByRole('button', { name: 'Accept' }).tap();
    await page.getByText('Taken by another rider. Wait for the next offer.').waitFor();
    await shot(page, '16-taken-by-another-rider');
    frozen = false;
    await card.waitFor({ state: 'detached', timeout: 10_000 });
    await Promise.all([rival.riderId, rider.rider_id].map((id) => setRider(stack.orm, id, { online: false })));
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it('tells a rider the service set offline after the phone went silent, and goes online again with the switch', async () => {
    const rider = await ops('rider:create', '--name', 'Kojo Sleepy');
    const { context, page } = await phone();
    await page.goto(rider.sign_in_url);
    await page.getByRole('switch', { name: 'Go online' }).tap();
    await page.getByText('You are online', { exact: true }).waitFor();
    // The switch shows online at once; the service records it when the app's request lands, and
    // only then can the street watch set the rider offline (else the request would undo it).
    await eventually(async () => (await riderRow(stack.orm, rider.rider_id))?.online === true, 10_000, 'the service to record the rider online');
    // What a round of the street watch leaves for a rider silent too long.
    await setRider(stack.orm, rider.rider_id, { online: false, offline_reason: 'silent' });
    // The phone comes back to the screen.
    await page.evaluate("document.dispatchEvent(new Event('visibilitychange'))");
    await page.getByText('You were set offline: no position came from this phone', { exact: false }).waitFor();
    await page.getByText('You are offline', { exact: true }).waitFor();
    await shot(page, '18-set-offline-after-silence');
    await page.getByRole('switch', { name: 'Go online' }).tap();
    await page.getByText('You are online', { exact: true }).waitFor();
    await eventually(async () => (await riderRow(stack.orm, rider.rider_id))?.online === true, 10_000, 'the rider online again');
    expect((await riderRow(stack.orm, rider.rider_id))?.offline_reason).toBeNull();
    await setRider(stack.orm, rider.rider_id, { online: false });
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('says how to allow location when the phone refuses it', async () => {
    const rider = await ops('rider:create', '--name', 'Abena NoGPS');
    const { context, page } = await phone(false);
    await page.goto(rider.sign_in_url);
    await page.getByRole('switch', { name: 'Go online' }).tap();
    await page.getByText('Location is blocked', { exact: false }).waitFor();
    await page.getByText('You are offline', { exact: true }).waitFor();
    await shot(page, '17-location-refused');
    await eventually(async () => (await riderRow(stack.orm, rider.rider_id))?.online === false, 10_000, 'the rider offline');
    await context.close();
  }, 60_000);
});
