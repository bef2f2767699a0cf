import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, registerAccount, stopBody } from '../helpers/bookings';
import { setRider } from '../helpers/db-riders';

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/track-page');
const PHONE = { width: 390, height: 844 };
// One poll a second keeps the test short; the page's own default is 6 s.
const POLL = '&poll=1';
const TRACK_API = /\/api\/v1\/track\/[^/]+\/public$/;

let stack: TestStack;
let browser: Browser;
beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  stack = await startTestStack({ env: { RATE_LIMIT_PUBLIC_PER_MINUTE: '100000' } });
  browser = await launchChromium();
}, 150_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** A phone-sized page that records every request it makes and every error it reports (CSP refusals included). */
async function phone(): Promise<{ context: BrowserContext; page: Page; requests: string[]; problems: string[] }> {
  const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'en-GB' });
  const page = await context.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { context, page, requests, problems };
}

const screenshot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

type Box = { x: number; y: number; width: number; height: number };
const within = (inner: Box, outer: Box, slack = 0) =>
  inner.x >= outer.x - slack &&
  inner.y >= outer.y - slack &&
  inner.x + inner.width <= outer.x + outer.width + slack &&
  inner.y + inner.height <= outer.y + outer.height + slack;

/**
 * What keeps the reader from seeing the whole trip on the map: a pin missing, without a size or
 * outside the map, or no dashed route between them. Empty when everything is in view.
 */
async function mapFaults(page: Page, pins: string[]): Promise<string[]> {
  const map = await page.locator('#map').boundingBox();
  if (!map || map.width === 0 || map.height === 0) return ['the map has no size'];
  const faults: string[] = [];
  const drawn: string[] = [];
  for (const pin of await page.locator('#map .pin').all()) {
    const kind = /\bpin-(\w+)/.exec((await pin.getAttribute('class')) ?? '')?.[1] ?? 'unknown';
    drawn.push(kind);
    const box = await pin.boundingBox();
    if (!box || box.width === 0 || box.height === 0) faults.push(`the ${kind} pin has no size`);
    else if (!within(box, map)) faults.push(`the ${kind} pin at (${Math.round(box.x)}, ${Math.round(box.y)}) is outside the map`);
  }
  if ([...drawn].sort().join() !== [...pins].sort().join()) faults.push(`pins drawn: ${drawn.join(', ')}`);
  const route = page.locator('#map .leaflet-overlay-pane path');
  if ((await route.count()) !== 1) return [...faults, `${await route.count()} route lines drawn`];
  const length = await route.evaluate((line: { getTotalLength(): number }) => line.getTotalLength());
  const box = await route.boundingBox();
  if (length < 100) faults.push(`the route is ${Math.round(length)} px long`);
  // A little slack for the width of the line.
  if (!box || !within(box, map, 3)) faults.push('the route runs outside the map');
  return faults;
}

/** The map frames pickup, every stop, drop-off and (while live) the rider, with the route between. */
async function expectWholeTripOnMap(page: Page, pins: string[]): Promise<void> {
  let faults: string[] = [];
  await eventually(async () => (faults = await mapFaults(page, pins)).length === 0, 3_000, 'the whole trip on the map').catch(() => undefined);
  expect(faults).toEqual([]);
}

const trackingPolls = (requests: string[]) => requests.filter((url) => TRACK_API.test(new URL(url).pathname)).length;

/** The page names the status in the contract's words, and carries its value for scripts. */
async function expectStatus(page: Page, status: string, name: string): Promise<void> {
  await page.locator(`#status-card[data-status="${status}"]`).waitFor();
  await expect(page.locator('#status-name').textContent()).resolves.toBe(name);
}

async function liveBooking(overrides: Record<string, unknown> = {}) {
  const partner = await makePartner(stack.orm);
  await registerAccount(stack.baseUrl, partner.liveKey);
  const rider = await makeRider(stack.orm, { lat: 5.553, lng: -0.204 }, 'Kwame Asante Boateng');
  await setRider(stack.orm, rider.riderId, { rating: 4.8 });
  const created = await book(stack.baseUrl, partner.liveKey, overrides);
  const riderApi = api(stack.baseUrl, rider.riderToken);
  const accept = async () => {
    await eventually(async () => (await riderApi.get('/rider/offers')).body.some((o: any) => o.delivery_id === created.id), 10_000, 'offer');
    expect((await riderApi.post(`/rider/deliveries/${created.id}/accept`)).status).toBe(200);
  };
  const step = async (action: string, at?: { lat: number; lng: number }) => {
    if (at) expect((await riderApi.post('/rider/location', at)).status).toBe(204);
    expect((await riderApi.post(`/rider/deliveries/${created.id}/${action}`)).status).toBe(200);
  };
  return { id: created.id, accept, step, move: (at: { lat: number; lng: number }) => riderApi.post('/rider/location', at) };
}

describe('hosted tracking page', () => {
  it('follows a delivery from booking to hand-over on a phone, then stops polling', async () => {
    const delivery = await liveBooking({ additional_stops: [stopBody()] });
    const { context, page, requests, problems } = await phone();

    const response = await page.goto(`${stack.baseUrl}/track?id=${delivery.id}${POLL}`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
    await page.getByText('Looking for a rider').waitFor();
    await expectStatus(page, 'pending', 'Pending');
    await expect(page.locator('#reference').textContent()).resolves.toBe(`DLV-${delivery.id.slice(0, 8).toUpperCase()}`);
    await expect(page.locator('#recipient').textContent()).resolves.toBe('For Ama M.');
    await expect(page.locator('#map .pin-pickup, #map .pin-stop, #map .pin-dropoff').count()).resolves.toBe(3);
    await expectWholeTripOnMap(page, ['pickup', 'stop', 'dropoff']);
    await screenshot(page, '1-looking-for-rider');
    // A full-page capture resizes the window for a moment; the map must come back framed.
    await expectWholeTripOnMap(page, ['pickup', 'stop', 'dropoff']);

    await delivery.accept();
    await page.getByText('A rider is on the way to collect your parcel').waitFor();
    await expect(page.locator('#rider-name').textContent()).resolves.toBe('Kwame B.');
    await expectStatus(page, 'accepted', 'Accepted');
    await expect(page.locator('#rider-meta').textContent()).resolves.toBe('Motorbike · ★ 4.8');

    await delivery.step('pickup', ACCRA.makola);
    await delivery.step('depart', { lat: 5.552, lng: -0.198 });
    await page.getByText('Your parcel is on its way').waitFor();
    await page.getByText(/Arriving in about \d+ min/).waitFor();
    await page.getByText('The rider has 1 stop before yours.').waitFor();
    await expectStatus(page, 'in_transit', 'In transit');
    await expect(page.locator('#map .pin-rider').count()).resolves.toBe(1);
    await expectWholeTripOnMap(page, ['pickup', 'stop', 'dropoff', 'rider']);
    await screenshot(page, '2-on-the-way');
    await expectWholeTripOnMap(page, ['pickup', 'stop', 'dropoff', 'rider']);

    // A window squeezed to almost nothing for a moment (a phone rotating, a tab coming back)
    // must not leave the map zoomed in on an empty spot between the pins.
    await page.setViewportSize({ width: 16, height: 16 });
    await page.waitForFunction('window.innerWidth < 100');
    await page.setViewportSize(PHONE);
    await page.waitForFunction(`window.innerWidth === ${PHONE.width}`);
    await expectWholeTripOnMap(page, ['pickup', 'stop', 'dropoff', 'rider']);

    await delivery.step('stops/0/complete', ACCRA.osu);
    await delivery.step('deliver', ACCRA.airport);
    await page.getByText('Delivered', { exact: true }).first().waitFor();
    await page.getByText(/^Handed over at/).waitFor();
    await expectStatus(page, 'delivered', 'Delivered');
    await expect(page.locator('#eta').isHidden()).resolves.toBe(true);
    await expectWholeTripOnMap(page, ['pickup', 'stop', 'dropoff']);
    await screenshot(page, '3-delivered');
    await page.setViewportSize({ width: 320, height: 640 });
    await expectWholeTripOnMap(page, ['pickup', 'stop', 'dropoff']);
    await screenshot(page, '3-delivered-small-phone');
    await expectWholeTripOnMap(page, ['pickup', 'stop', 'dropoff']);

    const pollsAtTheEnd = trackingPolls(requests);
    await page.waitForTimeout(3_500);
    expect(trackingPolls(requests)).toBe(pollsAtTheEnd);
    // Everything came from this server: no tiles, fonts or scripts from anywhere else.
    expect(requests.filter((url) => !url.startsWith(stack.baseUrl) && !url.startsWith('data:'))).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('polls every 5 to 10 seconds by default and never shows a phone number, a fare or a code', async () => {
    const stopPhone = '+233201112233';
    const delivery = await liveBooking({ verification_method: 'otp', additional_stops: [stopBody({ recipient_phone: stopPhone })] });
    await delivery.accept();
    const { context, page, requests } = await phone();
    const bodies: string[] = [];
    const polledAt: number[] = [];
    let pollsAnswered = 0;
    page.on('request', (request) => {
      if (TRACK_API.test(new URL(request.url()).pathname)) polledAt.push(Date.now());
    });
    page.on('response', (response) =>
      void response.text().then(
        (text) => {
          bodies.push(text);
          if (TRACK_API.test(new URL(response.url()).pathname)) pollsAnswered += 1;
        },
        () => undefined,
      ),
    );

    await page.goto(`${stack.baseUrl}/track?id=${delivery.id}`);
    await page.getByText('A rider is on the way to collect your parcel').waitFor();
    // Three polls answered give two gaps; at the slowest pace allowed (10.5 s) they take 21 s.
    await eventually(async () => pollsAnswered >= 3, 25_000, 'three polls answered');
    const gaps = polledAt.slice(1).map((at, i) => at - (polledAt[i] as number));
    expect(gaps.length).toBeGreaterThanOrEqual(2);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(5_000);
      expect(gap).toBeLessThanOrEqual(10_500);
    }

    const seen = [...bodies, await page.content(), await page.locator('body').innerText()].join('\n');
    for (const secret of ['+233241234567', '0241234567', stopPhone, '0201112233', 'recipient_phone', 'fare', 'otp', 'handover_code']) {
      expect({ secret, seen: seen.includes(secret) }).toEqual({ secret, seen: false });
    }
    expect(requests.filter((url) => !url.startsWith(stack.baseUrl) && !url.startsWith('data:'))).toEqual([]);
    await context.close();
  });

  it('shows a cancelled delivery as over and polls no more', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const created = await book(stack.baseUrl, partner.liveKey);
    expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
    const { context, page, requests } = await phone();

    await page.goto(`${stack.baseUrl}/track?id=${created.id}${POLL}`);
    await page.getByText('This delivery was cancelled').waitFor();
    await expectStatus(page, 'cancelled', 'Cancelled');
    await expect(page.locator('#timeline li').allTextContents()).resolves.toEqual([expect.stringMatching(/^Booked/), expect.stringMatching(/^Cancelled/)]);
    await page.waitForTimeout(2_500);

    expect(trackingPolls(requests)).toBe(1);
    await context.close();
  });

  it('turns a delivery no rider took to expired while open, and polls no more', async () => {
    // An API whose bookings give up on a rider after 1.5 s, served by the same worker.
    const hasty = await startTestStack({
      env: { DISPATCH_TIMEOUT_SECONDS: '1.5', DISPATCH_WIDEN_SECONDS: '0.5', TEMPORAL_TASK_QUEUE: stack.settings.temporalTaskQueue },
      withoutWorker: true,
    });
    try {
      const partner = await makePartner(stack.orm);
      await registerAccount(hasty.baseUrl, partner.liveKey);
      const created = await book(hasty.baseUrl, partner.liveKey);
      const { context, page, requests } = await phone();

      await page.goto(`${stack.baseUrl}/track?id=${created.id}${POLL}`);
      await page.getByText('No rider was found').waitFor({ timeout: 15_000 });
      await expectStatus(page, 'expired', 'Expired');
      await expect(page.locator('#timeline li').allTextContents()).resolves.toEqual([
        expect.stringMatching(/^Booked/),
        expect.stringMatching(/^No rider found/),
      ]);
      const pollsAtTheEnd = trackingPolls(requests);
      await page.waitForTimeout(2_500);

      expect(trackingPolls(requests)).toBe(pollsAtTheEnd);
      await context.close();
    } finally {
      await hasty.close();
    }
  });

  it("says it can't find a delivery whose id is unknown, malformed or missing", async () => {
    const { context, page } = await phone();
    for (const query of [`?id=${randomUUID()}`, '?id=not-a-delivery', '']) {
      await page.goto(`${stack.baseUrl}/track${query}`);
      await page.getByText("We can't find this delivery").waitFor();
      await expect(page.locator('#view').isHidden()).resolves.toBe(true);
    }
    await screenshot(page, '4-not-found');
    await context.close();
  });

  it('keeps the last view while the connection is lost and picks up where it left off', async () => {
    const delivery = await liveBooking();
    await delivery.accept();
    const { context, page } = await phone();
    await page.goto(`${stack.baseUrl}/track?id=${delivery.id}${POLL}`);
    await page.getByText('A rider is on the way to collect your parcel').waitFor();

    await page.route(TRACK_API, (route) => route.abort('internetdisconnected'));
    await page.getByText('Connection lost. Reconnecting…').waitFor();
    await delivery.step('pickup', ACCRA.makola);
    await expect(page.getByText('A rider is on the way to collect your parcel').isVisible()).resolves.toBe(true);
    await expect(page.locator('#rider-name').textContent()).resolves.toBe('Kwame B.');
    await screenshot(page, '5-reconnecting');
    await page.unroute(TRACK_API);

    await page.getByText('Your parcel has been collected').waitFor({ timeout: 20_000 });
    await expect(page.locator('#banner').isHidden()).resolves.toBe(true);
    await context.close();
  });

  it('draws the map over a tile server when one is configured', async () => {
    const tiles = await fakeTileServer();
    const tiled = await startTestStack({
      env: { MAP_TILE_URL: `${tiles.url}/{z}/{x}/{y}.png`, TEMPORAL_TASK_QUEUE: stack.settings.temporalTaskQueue },
      withoutWorker: true,
    });
    try {
      const delivery = await liveBooking();
      const { context, page, problems } = await phone();
      const response = await page.goto(`${tiled.baseUrl}/track?id=${delivery.id}`);
      expect(response?.headers()['content-security-policy']).toContain(`img-src 'self' data: ${tiles.url}`);
      await page.getByText('Looking for a rider').waitFor();
      await eventually(async () => tiles.requests.length > 0, 10_000, 'a tile request');
      expect(tiles.requests.every((p) => /^\/\d+\/\d+\/\d+\.png$/.test(p))).toBe(true);
      await page.getByText('© OpenStreetMap contributors').waitFor();
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await tiled.close();
      await tiles.close();
    }
  });
});

/** A tile server on loopback answering every tile with the same small image. */
async function fakeTileServer(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  );
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length });
    res.end(png);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
