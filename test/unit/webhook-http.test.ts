import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AxiosWebhookHttp } from '../../activities/webhook-http';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

let server: Server;
let port: number;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks) });
      if (req.url === '/redirect') res.writeHead(302, { Location: `http://127.0.0.1:${port}/elsewhere` }).end();
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 4000);
      else if (req.url === '/large') res.writeHead(200, { 'Content-Type': 'text/plain' }).end('x'.repeat(5 * 1024 * 1024));
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
});

const production = () => new AxiosWebhookHttp({ timeoutMs: 1000, allowPrivateAddresses: false, userAgent: 'PartnerDeliveryService-Webhooks/1.0' });
const development = () => new AxiosWebhookHttp({ timeoutMs: 500, allowPrivateAddresses: true, userAgent: 'PartnerDeliveryService-Webhooks/1.0' });

describe('sending a callback with private addresses refused (production)', () => {
  it.each([
    ['a loopback address', () => `http://127.0.0.1:${port}/hook`],
    ['a host name that resolves to loopback', () => `http://localhost:${port}/hook`],
    ['an IPv4-mapped IPv6 loopback address', () => `http://[::ffff:127.0.0.1]:${port}/hook`],
  ])('refuses to connect to %s', async (_what, url) => {
    await expect(production().post(url(), '{}', { 'Content-Type': 'application/json' })).rejects.toThrow(/is not allowed/);
    expect(seen).toHaveLength(0);
  });
});

describe('sending a callback with private addresses allowed (outside production)', () => {
  it('sends the body bytes exactly as given, with the headers and a User-Agent naming the service', async () => {
    const body = '{"event":"delivery.accepted","data":{"recipient_name":"Ama Serwaa — Ɔsu","n":1.50}}';
    const answer = await development().post(`http://127.0.0.1:${port}/hook`, body, {
      'Content-Type': 'application/json',
      'X-Service-Signature': 'sha256=abc',
    });
    expect(answer.status).toBe(204);
    expect(answer.latencyMs).toEqual(expect.any(Number));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.raw.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.headers['x-service-signature']).toBe('sha256=abc');
    expect(seen[0]!.headers['user-agent']).toBe('PartnerDeliveryService-Webhooks/1.0');
  });

  it('does not follow a redirect: the redirect is the answer', async () => {
    const answer = await development().post(`http://127.0.0.1:${port}/redirect`, '{}', {});
    expect(answer.status).toBe(302);
    expect(seen.map((s) => s.path)).toEqual(['/redirect']);
  });

  it('gives up on an answer slower than the time limit', async () => {
    const started = Date.now();
    await expect(development().post(`http://127.0.0.1:${port}/slow`, '{}', {})).rejects.toThrow();
    // Well before the answer at 4 s, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('counts a 2xx as success whatever the size of the answer body', async () => {
    const answer = await development().post(`http://127.0.0.1:${port}/large`, '{}', {});
    expect(answer.status).toBe(200);
  });
});
