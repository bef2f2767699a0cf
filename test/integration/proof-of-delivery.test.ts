import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, livePartner, registerAccount, stopBody } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { readOutbox } from '../../db/sms-outbox';
import type { Handover } from '../../clients/typescript/src';
import { liveDashboardOwner } from '../helpers/dashboard';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import { agePhotoUpload, handoverPhotosOf, photoUploadsOf } from '../helpers/db-deliveries';
import { recordUpload } from '../../db/handover-photos';
import { FINAL_DROP } from '../../domain/lifecycle';
import { createRetentionActivities } from '../../activities/retention';

// Proof of delivery (GET /partner/deliveries/{id}/proof) over real HTTP, with photos in local
// files served by the API's own signed links. Links live 6 s here, so their end can be seen.
const LINK_SECONDS = 6;

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env: { PROOF_LINK_MINUTES: String(LINK_SECONDS / 60) } });
});
afterAll(async () => {
  await stack?.close();
});

/** Where the rider stands at each hand-over: a stop in Osu, the final drop at the airport. */
const AT_STOP = { lat: 5.55612, lng: -0.18245 };
const AT_DROP = { lat: 5.60498, lng: -0.16702 };

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF stop photo bytes')]);
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A live delivery with one stop, booked with `method`, taken and on its way. */
async function underWay(method: 'none' | 'otp' | 'photo', recipients = { stop: '+233241234567', drop: '+233241234567' }) {
  const partner = await livePartner(stack);
  const rider = await riderApp(stack.baseUrl, stack.orm);
  const created = await book(stack.baseUrl, partner.liveKey, {
    verification_method: method,
    recipient_phone: recipients.drop,
    additional_stops: [stopBody({ dropoff_lat: ACCRA.osu.lat, dropoff_lng: ACCRA.osu.lng, recipient_phone: recipients.stop })],
  });
  await rider.take(created.id);
  await rider.pickup(created.id);
  await rider.depart(created.id);
  return { partner, rider, created };
}

async function proofOf(client: ReturnType<typeof api>, id: string): Promise<Handover[]> {
  const res = await client.get<Handover[]>(`/partner/deliveries/${id}/proof`);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return res.body;
}

/**
 * A photo link as the partner opens it. Links point at SITE_URL, the public address; this
 * test's API listens on a port of its own behind no proxy, so the request goes there.
 */
function open(link: string | URL): Promise<Response> {
  const url = new URL(link);
  expect(url.origin).toBe(new URL(stack.settings.siteUrl).origin);
  return fetch(new URL(`${url.pathname}${url.search}`, stack.baseUrl));
}

/** The code texted to `phone` for this delivery. */
async function codeFor(phone: string, reference: string): Promise<string> {
  const text = await eventually(
    async () => (await readOutbox(stack.orm.em.fork(), phone)).find((m) => m.body.includes(reference)),
    10_000,
    `code for ${phone}`,
  );
  return /(\d{6})$/.exec(text.body)![1]!;
}

describe('proof of delivery', () => {
  it('lists each hand-over as it happens, the stop then the final drop, with when and where (method none)', async () => {
    const { partner, rider, created } = await underWay('none');
    expect(await proofOf(partner.client, created.id)).toEqual([]);

    await rider.at(AT_STOP);
    expect((await rider.completeStop(created.id, 0)).status).toBe(200);
    const afterStop = await proofOf(partner.client, created.id);
    expect(afterStop).toEqual([{ stop_index: 0, method: 'none', verified_at: expect.any(String), ...AT_STOP, photo_url: null }]);

    await rider.at(AT_DROP);
    expect((await rider.deliver(created.id)).status).toBe(200);
    const delivery = (await partner.client.get(`/partner/deliveries/${created.id}`)).body;
    const proof = await proofOf(partner.client, created.id);
    expect(proof).toEqual([
      { stop_index: 0, method: 'none', verified_at: delivery.additional_stops[0].delivered_at, ...AT_STOP, photo_url: null },
      { stop_index: null, method: 'none', verified_at: delivery.delivered_at, ...AT_DROP, photo_url: null },
    ]);
  });

  it('gives otp hand-overs as checked codes, with no photo', async () => {
    const recipients = { stop: '+233241238801', drop: '+233241238802' };
    const { partner, rider, created } = await underWay('otp', recipients);
    await rider.at(AT_STOP);
    expect((await rider.completeStop(created.id, 0, { otp: await codeFor(recipients.stop, created.reference) })).status).toBe(200);
    await rider.at(AT_DROP);
    expect((await rider.deliver(created.id, { otp: await codeFor(recipients.drop, created.reference) })).status).toBe(200);

    const proof = await proofOf(partner.client, created.id);
    expect(proof.map((h) => [h.stop_index, h.method, h.lat, h.lng, h.photo_url])).toEqual([
      [0, 'otp', AT_STOP.lat, AT_STOP.lng, null],
      [null, 'otp', AT_DROP.lat, AT_DROP.lng, null],
    ]);
    expect(proof.every((h) => !Number.isNaN(Date.parse(h.verified_at)))).toBe(true);
  });

  it('links each photo, without the key, to the exact bytes uploaded and their type', async () => {
    const { partner, rider, created } = await underWay('photo');
    await rider.at(AT_STOP);
    await rider.handOverWithPhoto(created.id, 0, JPEG, 'application/octet-stream');
    await rider.at(AT_DROP);
    await rider.handOverWithPhoto(created.id, 'final', PNG, 'image/png');

    const proof = await proofOf(partner.client, created.id);
    expect(proof.map((h) => [h.stop_index, h.method, h.lat, h.lng])).toEqual([
      [0, 'photo', AT_STOP.lat, AT_STOP.lng],
      [null, 'photo', AT_DROP.lat, AT_DROP.lng],
    ]);
    const [stopPhoto, dropPhoto] = await Promise.all(proof.map((h) => open(h.photo_url!)));
    expect(stopPhoto!.status).toBe(200);
    expect(stopPhoto!.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await stopPhoto!.arrayBuffer()).equals(JPEG)).toBe(true);
    expect(dropPhoto!.status).toBe(200);
    expect(dropPhoto!.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await dropPhoto!.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('keeps only the photo of the hand-over the workflow took: the others racing it are removed, file and record', async () => {
    const { partner, rider, created } = await underWay('photo');
    await rider.at(AT_STOP);
    await rider.handOverWithPhoto(created.id, 0, JPEG);
    await rider.at(AT_DROP);
    // Three hand-overs of the final drop at once, each with photo bytes of its own: one is taken;
    // the others are refused, by the workflow (one hand-over at a time) or, once it is delivered, on the read.
    const photos = [PNG, Buffer.concat([JPEG, Buffer.from(' second')]), Buffer.concat([JPEG, Buffer.from(' third')])];
    const answers = await Promise.all(photos.map((photo, i) => rider.sendPhotoHandover(created.id, 'final', photo, i === 0 ? 'image/png' : 'image/jpeg')));
    const taken = answers.map((answer) => answer.status).indexOf(200);
    expect(answers.map((answer) => answer.status === 200).filter(Boolean)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status !== 200).every((answer) => [400, 409].includes(answer.status))).toBe(true);

    const [, drop] = await proofOf(partner.client, created.id);
    const served = await open(drop!.photo_url!);
    expect(Buffer.from(await served.arrayBuffer()).equals(photos[taken]!)).toBe(true);
    const kept = await handoverPhotosOf(stack.orm, created.id);
    expect(kept.map((photo) => [photo.position, photo.size_bytes])).toEqual([
      [0, JPEG.length],
      [FINAL_DROP, photos[taken]!.length],
    ]);
    // Nothing else of this delivery is left in the store, or waiting for an answer.
    const files = readdirSync(`${stack.settings.dataDir}/test/uploads`).filter((name) => name.startsWith(created.id));
    expect(files.sort()).toEqual(kept.map((photo) => photo.storage_key).sort());
    expect(await photoUploadsOf(stack.orm, created.id)).toEqual([]);
  });

  it('removes a photo whose hand-over was never answered once a day has passed, and keeps a newer one', async () => {
    const { created } = await underWay('photo');
    const upload = async () => {
      const storageKey = `${created.id}-final-${randomUUID()}.jpg`;
      await recordUpload(stack.orm.em.fork(), { deliveryId: created.id, position: FINAL_DROP, storageKey, contentType: 'image/jpeg', sizeBytes: JPEG.length });
      await stack.deps.photos.put(storageKey, Readable.from([JPEG]), 'image/jpeg');
      return storageKey;
    };
    const [old, recent] = [await upload(), await upload()];
    await agePhotoUpload(stack.orm, old, { hours: 25 });

    const retention = createRetentionActivities({ orm: stack.orm, photos: stack.deps.photos, logger: stack.deps.logger });
    const { photoUploads } = await retention.forgetShortLivedCopies();
    expect(photoUploads).toBeGreaterThanOrEqual(1);
    expect(await stack.deps.photos.get(old)).toBeNull();
    expect(await stack.deps.photos.get(recent)).not.toBeNull();
    expect(await photoUploadsOf(stack.orm, created.id)).toEqual([recent]);
  });

  it('refuses a photo link whose signature, drop or expiry was changed, and one past its time', async () => {
    const { partner, rider, created } = await underWay('photo');
    await rider.handOverWithPhoto(created.id, 0, JPEG);
    const [first] = await proofOf(partner.client, created.id);
    const link = new URL(first!.photo_url!);
    const signature = link.searchParams.get('signature')!;

    const altered = (change: (url: URL) => void) => {
      const url = new URL(link);
      change(url);
      return open(url);
    };
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    const refusals = await Promise.all([
      altered((url) => url.searchParams.set('signature', flipped)),
      altered((url) => url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600))),
      altered((url) => (url.pathname = url.pathname.replace(/stop-0$/, 'final'))),
      altered((url) => url.searchParams.delete('signature')),
    ]);
    expect(await Promise.all(refusals.map(async (r) => [r.status, ((await r.json()) as { error: { code: string } }).error.code]))).toEqual([
      [403, 'forbidden'],
      [403, 'forbidden'],
      [403, 'forbidden'],
      [400, 'bad_request'],
    ]);
    expect((await open(link)).status).toBe(200);

    // Past its time the same link is refused; reading the proof again signs a fresh one.
    await new Promise((resolve) => setTimeout(resolve, (LINK_SECONDS + 1.5) * 1000));
    const expired = await open(link);
    expect(expired.status).toBe(403);
    expect(await expired.json()).toMatchObject({ error: { code: 'forbidden', details: { expired: true } } });
    const [fresh] = await proofOf(partner.client, created.id);
    expect(fresh!.photo_url).not.toBe(first!.photo_url);
    expect((await open(fresh!.photo_url!)).status).toBe(200);
  }, 60_000);

  it("answers its own partner, and 404 for another partner's delivery, one of the other mode, and an id that is none", async () => {
    const { partner, created } = await underWay('none');
    const stranger = await makePartner(stack.orm);
    const proofWith = (key: string, id = created.id) => api(stack.baseUrl, key).get(`/partner/deliveries/${id}/proof`);
    expect((await proofWith(partner.liveKey)).status).toBe(200);
    expect((await proofWith(stranger.liveKey)).status).toBe(404);
    expect((await proofWith(partner.testKey)).status).toBe(404);
    expect((await proofWith(partner.liveKey, 'not-a-delivery')).body.error.code).toBe('not_found');
    expect((await proofWith('sk_live_nonsense')).status).toBe(401);
  });
});

describe("the dashboard's delivery page", () => {
  it('shows each hand-over with how it was checked, when, where, and its photo', async () => {
    const { apiKey, dashboard } = await liveDashboardOwner(stack);
    await registerAccount(stack.baseUrl, apiKey);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, apiKey, {
      verification_method: 'photo',
      additional_stops: [stopBody({ dropoff_lat: ACCRA.osu.lat, dropoff_lng: ACCRA.osu.lng })],
    });
    await rider.take(created.id);
    await rider.pickup(created.id);
    await rider.depart(created.id);
    const proofPanel = async () => {
      const page = await dashboard.get(`/dashboard/deliveries/${created.id}`);
      expect(page.status).toBe(200);
      return /<section class="panel" aria-labelledby="proof-title">([\s\S]*?)<\/section>/.exec(page.text)![1]!;
    };
    expect(await proofPanel()).toContain('No hand-over yet.');

    await rider.at(AT_STOP);
    await rider.handOverWithPhoto(created.id, 0, JPEG);
    await rider.at(AT_DROP);
    await rider.handOverWithPhoto(created.id, 'final', PNG, 'image/png');

    const panel = await proofPanel();
    const items = [...panel.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1]!);
    expect(items).toHaveLength(2);
    expect(items[0]).toMatch(/<strong>Stop 1<\/strong> · Photo taken · <time datetime="[^"]+">.*<\/time> · at 5\.55612, -0\.18245/);
    expect(items[1]).toMatch(/<strong>Drop-off<\/strong> · Photo taken · <time datetime="[^"]+">.*<\/time> · at 5\.60498, -0\.16702/);
    // Each photo is shown from a link signed for this page, which serves the uploaded bytes.
    const sources = items.map((item) => /<img src="([^"]+)" alt="Photo of the hand-over, (stop 1|drop-off)"/.exec(item)![1]!.replace(/&amp;/g, '&'));
    const served = await Promise.all(sources.map(async (source) => Buffer.from(await (await open(source)).arrayBuffer())));
    expect(served[0]!.equals(JPEG)).toBe(true);
    expect(served[1]!.equals(PNG)).toBe(true);
  });
});
