import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { errorHandler } from '../../api/middleware/error-handler';
import { uploadSlots } from '../../api/rider/upload-slots';
import { createLogger } from '../../config/logger';

// One slot and a short wait: an upload that cannot get a slot in time is answered 503 in the
// envelope without its body being read; one that gets a slot within the wait goes through.

const BOUNDARY = 'slot-test-boundary';
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  const app = express();
  app.post('/upload', uploadSlots(1, 300), (req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => res.json({ bytes }));
  });
  app.use(errorHandler(createLogger({ level: 'error', json: false, service: 'test' })));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** An upload whose body is sent slowly: it holds its slot until `finish` is called. */
function slowUpload(): { finish: () => void; answer: Promise<number> } {
  const req = http.request(`${baseUrl}/upload`, { method: 'POST', headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` } });
  req.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="photo"; filename="a.jpg"\r\n\r\n`);
  const answer = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
  return { finish: () => req.end(`xyz\r\n--${BOUNDARY}--\r\n`), answer };
}

function upload(): Promise<Response> {
  const form = new FormData();
  form.append('photo', new Blob([Buffer.alloc(1024)]), 'b.jpg');
  return fetch(`${baseUrl}/upload`, { method: 'POST', body: form });
}

describe('photo upload slots', () => {
  it('answers 503 unavailable, with Retry-After, when no slot frees up within the wait', async () => {
    const holder = slowUpload();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await upload();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await refused.json()).toEqual({ error: { code: 'unavailable', message: expect.stringMatching(/uploads/), details: {} } });
    holder.finish();
    expect(await holder.answer).toBe(200);
    // The slot is free again once the holder is answered.
    expect((await upload()).status).toBe(200);
  });

  it('lets a waiting upload through when a slot frees up in time', async () => {
    const holder = slowUpload();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waiting = upload();
    setTimeout(() => holder.finish(), 100);
    expect((await waiting).status).toBe(200);
    expect(await holder.answer).toBe(200);
  });

  it('counts only multipart uploads', async () => {
    const holder = slowUpload();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const json = await fetch(`${baseUrl}/upload`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(200);
    holder.finish();
    await holder.answer;
  });
});
