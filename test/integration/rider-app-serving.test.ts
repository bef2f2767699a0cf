import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTestStack, type TestStack } from '../helpers/stack';
import { api } from '../helpers/http';

const WEB = path.resolve(__dirname, '../../web/rider');

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ withoutWorker: true, env: { RATE_LIMIT_AUTH_PER_MINUTE: '3' } });
});
afterAll(async () => {
  await stack?.close();
});

const get = (p: string, headers: Record<string, string> = {}) => fetch(`${stack.baseUrl}${p}`, { headers, redirect: 'manual' });

describe('the rider app as served', () => {
  it('lives under /rider/, one page for the app and its sign-in link, loading nothing from elsewhere', async () => {
    const bare = await get('/rider?from=qr');
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/rider/');
    const home = await get('/rider/');
    const signIn = await get('/rider/sign-in');
    expect(home.status).toBe(200);
    expect(await signIn.text()).toBe(await home.text());
    expect(home.headers.get('cache-control')).toBe('no-cache');
    expect(home.headers.get('referrer-policy')).toBe('no-referrer');
    const csp = home.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect((await fetch(`${stack.baseUrl}/rider/`, { method: 'POST' })).status).toBe(405);
  });

  it('sends every file gzipped with an ETag, and a 304 when the phone has it already', async () => {
    const res = await get('/rider/app.js', { 'Accept-Encoding': 'gzip' });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    // fetch undoes the gzip: the bytes are the file's.
    expect(await res.text()).toBe(readFileSync(path.join(WEB, 'app.js'), 'utf8'));
    const etag = res.headers.get('etag')!;
    const again = await get('/rider/app.js', { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    const leaflet = await get('/rider/leaflet/leaflet.js', { 'Accept-Encoding': 'gzip' });
    expect(leaflet.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(Number(leaflet.headers.get('content-length'))).toBeLessThan(50_000);
  });

  it('serves a service worker whose version names the files, and a manifest scoped to the app', async () => {
    const worker = await (await get('/rider/sw.js')).text();
    expect(worker).toMatch(/const VERSION = '[A-Za-z0-9_-]{12}';/);
    const manifest = await (await get('/rider/manifest.webmanifest')).json();
    expect(manifest).toMatchObject({ start_url: '/rider/', scope: '/rider/', display: 'standalone' });
  });

  it('counts sign-in attempts per IP address, before any code is looked up', async () => {
    const attempts = [];
    for (let i = 0; i < 4; i++) attempts.push(await api(stack.baseUrl).post('/rider/sign-in', { code: 'B'.repeat(32) }));
    expect(attempts.slice(0, 3).map((a) => a.status)).toEqual([401, 401, 401]);
    expect(attempts[3]!.status).toBe(429);
    expect(attempts[3]!.body.error.code).toBe('rate_limited');
  });
});
