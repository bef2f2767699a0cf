import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Photos } from '../../integrations/storage/s3-photos';
import { SEAWEEDFS_BUILD_WAIT_MS, startTestS3, type TestS3 } from '../helpers/seaweedfs';
import { startTestStack, type TestStack } from '../helpers/stack';
import { livePartner, book, stopBody } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import type { Handover } from '../../clients/typescript/src';

// Hand-over photos in an S3-compatible bucket (PHOTO_STORE=s3), against a real S3 server this
// file starts (SeaweedFS): what the store writes, reads, deletes and signs, and the proof of
// delivery's links pointing partners at the store itself.

let s3: TestS3;
// On a new machine SeaweedFS is still being built while the first suites run: wait for it.
beforeAll(async () => {
  s3 = await startTestS3();
}, SEAWEEDFS_BUILD_WAIT_MS + 120_000);
afterAll(async () => {
  await s3?.stop();
});

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), randomBytes(64 * 1024)]);
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

function store(publicUrl?: string): S3Photos {
  return new S3Photos({
    bucket: s3.bucket,
    region: 'us-east-1',
    endpoint: s3.endpoint,
    publicUrl,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
}

describe('the S3 photo store', () => {
  it('stores the bytes as read under a key of its own, reads them back, and deletes them (a second delete is no error)', async () => {
    const photos = store();
    const key = await photos.put('delivery 1/final photo.jpeg', Readable.from([JPEG.subarray(0, 1000), JPEG.subarray(1000)]), 'image/jpeg');
    expect(key).toBe('delivery_1_final_photo.jpeg');
    expect((await photos.get(key))!.equals(JPEG)).toBe(true);

    await photos.delete(key);
    expect(await photos.get(key)).toBeNull();
    await expect(photos.delete(key)).resolves.toBeUndefined();
    photos.close();
  });

  it('signs a GET link that needs no credentials, serves the bytes with their type, and stops at its time', async () => {
    const photos = store();
    const key = await photos.put('signed.png', Readable.from([PNG]), 'image/png');
    const link = await photos.signedUrl(key, 3);

    const served = await fetch(link);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
    // Unsigned, or with the signature altered, the store refuses it.
    expect((await fetch(link.split('?')[0]!)).status).toBe(403);
    const url = new URL(link);
    const signature = url.searchParams.get('X-Amz-Signature')!;
    url.searchParams.set('X-Amz-Signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
    expect((await fetch(url)).status).toBe(403);

    await new Promise((resolve) => setTimeout(resolve, 4500));
    expect((await fetch(link)).status).toBe(403);
    photos.close();
  });

  it('signs links for the public address, while it talks to the store at its own', async () => {
    const publicUrl = s3.endpoint.replace('127.0.0.1', 'localhost');
    const photos = store(publicUrl);
    const key = await photos.put('public.png', Readable.from([PNG]), 'image/png');
    const link = await photos.signedUrl(key, 60);
    expect(link.startsWith(`${publicUrl}/${s3.bucket}/public.png?`)).toBe(true);
    expect(photos.linkOrigin).toBe(publicUrl);
    expect((await fetch(link)).status).toBe(200);
    photos.close();
  });
});

describe('proof of delivery with PHOTO_STORE=s3', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { ...s3.env, S3_PUBLIC_URL: s3.endpoint.replace('127.0.0.1', 'localhost') } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("keeps the rider's photos in the bucket and links the partner to the store's own signed GET", async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, { verification_method: 'photo', additional_stops: [stopBody()] });
    await rider.take(created.id);
    await rider.pickup(created.id);
    await rider.depart(created.id);
    await rider.handOverWithPhoto(created.id, 0, JPEG);
    await rider.handOverWithPhoto(created.id, 'final', PNG, 'image/png');

    const proof = (await partner.client.get<Handover[]>(`/partner/deliveries/${created.id}/proof`)).body;
    expect(proof.map((h) => h.stop_index)).toEqual([0, null]);
    const publicOrigin = new URL(s3.endpoint.replace('127.0.0.1', 'localhost')).origin;
    for (const [handover, bytes, type] of [
      [proof[0]!, JPEG, 'image/jpeg'],
      [proof[1]!, PNG, 'image/png'],
    ] as const) {
      const link = new URL(handover.photo_url!);
      expect(link.origin).toBe(publicOrigin);
      expect(link.searchParams.get('X-Amz-Expires')).toBe('900');
      const served = await fetch(link);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(type);
      expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
    }

    // In the bucket, under the key the link names: not on this host's disk.
    const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: s3 });
    const key = decodeURIComponent(new URL(proof[1]!.photo_url!).pathname.split('/').pop()!);
    const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));
    expect([head.ContentType, head.ContentLength]).toEqual(['image/png', PNG.length]);
    client.destroy();
  });

  it("lets the dashboard's pages show images from the store's public address, and from nowhere else new", async () => {
    const page = await fetch(`${stack.baseUrl}/dashboard/login`);
    const imgSrc = /(?:^|;)\s*img-src ([^;]*)/.exec(page.headers.get('content-security-policy') ?? '')![1]!.split(' ');
    expect(imgSrc).toEqual(["'self'", 'data:', new URL(s3.endpoint.replace('127.0.0.1', 'localhost')).origin]);
  });
});
