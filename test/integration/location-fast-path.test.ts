import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createApp } from '../../api/app';
import { answerMalformedRequests } from '../../api/middleware/host-required';
import { httpRequests } from '../../api/metric-registry';
import { generateSecret } from '../../domain/api-key';
import type { Orm } from '../../db/orm';
import type { TcpProxy } from '../fakes/tcp-proxy';
import { capturingLogger } from '../helpers/captured-logs';
import { ormBehindProxy } from '../helpers/db-faults';
import { expireRiderToken } from '../helpers/db-riders';
import { api } from '../helpers/http';
import { makeRider } from '../helpers/partners';
import { startTestStack, type TestStack } from '../helpers/stack';

// The rider's position ping is served ahead of Express (api/rider/location-fast-path.ts). Here the
// same requests go to a server that runs it and to one that runs the Express app alone, both of
// one createApp, so they share its limiters and token cache: every answer must be the same,
// byte for byte but for the date, a new request id and what each request spent of the budget.

const PATH = '/api/v1/rider/location';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const stacks: TestStack[] = [];
const servers: Server[] = [];
const proxies: TcpProxy[] = [];
const orms: Orm[] = [];
afterAll(async () => {
  for (const server of servers) server.close();
  await Promise.all(stacks.map((s) => s.close()));
  for (const proxy of proxies) await proxy.restore();
  await Promise.all(orms.map((o) => o.close()));
  for (const proxy of proxies) await proxy.close();
});

async function stackWith(env: Record<string, string> = {}, orm?: Orm): Promise<TestStack> {
  const stack = await startTestStack({ env, withoutWorker: true, ...(orm ? { appOverrides: { orm } } : {}) });
  stacks.push(stack);
  return stack;
}

function listen(listener: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(listener);
  answerMalformedRequests(server);
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** The same app served two ways: with the fast path ahead (`fast`), and Express alone (`express`). */
async function pairOf(stack: TestStack) {
  const { logger, lines } = capturingLogger('http', 'api');
  const { app, listener } = createApp({ ...stack.deps, logger });
  const handled = jest.spyOn(app as unknown as { handle: (...args: unknown[]) => void }, 'handle');
  return {
    fast: await listen(listener),
    express: await listen(app),
    /** Requests Express has served so far, on either server. */
    expressServed: () => handled.mock.calls.length,
    logged: (requestId: string) =>
      lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.requestId === requestId),
  };
}
type Pair = Awaited<ReturnType<typeof pairOf>>;

interface Sent {
  method?: string;
  path?: string;
  headers?: Record<string, string | string[]>;
  /** Framed by a Content-Length unless the headers frame it. */
  body?: string | Buffer;
  /** HTTP/1.0, which needs no Host. */
  http10?: boolean;
  noHost?: boolean;
}

interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
}

/** One request on a connection of its own, written byte for byte; the answer as it came. */
function send(port: number, sent: Sent): Promise<Answer> {
  const headers = Object.entries(sent.headers ?? {}).flatMap(([name, value]) => [value].flat().map((v) => `${name}: ${v}`));
  const body = sent.body === undefined ? Buffer.alloc(0) : Buffer.from(sent.body);
  const framed = headers.some((h) => /^(content-length|transfer-encoding):/i.test(h));
  const head = [
    `${sent.method ?? 'POST'} ${sent.path ?? PATH} HTTP/1.${sent.http10 ? 0 : 1}`,
    ...(sent.noHost ? [] : ['Host: 127.0.0.1']),
    'Connection: close',
    ...headers,
    ...(sent.body !== undefined && !framed ? [`Content-Length: ${body.length}`] : []),
  ];
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written, not ended: a client that half-closes is taken to have gone away. The server closes after its answer.
    const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body])));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [top = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = top.split('\r\n');
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers: headerLines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
        body: rest.join('\r\n\r\n'),
      });
    });
  });
}

function header(answer: Answer, name: string): string | undefined {
  return answer.headers.find(([n]) => n.toLowerCase() === name)?.[1];
}

/** Requests counted by the HTTP metric, by their labels. */
async function metricCounts(): Promise<Map<string, number>> {
  return new Map((await httpRequests.get()).values.map((v) => [JSON.stringify(v.labels), v.value]));
}

/** Sends `sent` to `port` and returns the answer and the metric labels it was counted under. */
async function sendCounted(port: number, sent: Sent): Promise<{ answer: Answer; counted: string[] }> {
  const before = await metricCounts();
  const answer = await send(port, sent);
  // The metric and the log line are written once the answer is out.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const after = await metricCounts();
  return { answer, counted: [...after].filter(([labels, value]) => value > (before.get(labels) ?? 0)).map(([labels]) => labels) };
}

/** An answer with what differs between any two requests put aside: the date, a new id, the budget spent. */
function comparable(answer: Answer, requestId: string | undefined) {
  return {
    status: answer.status,
    body: answer.body,
    headers: answer.headers.map(([name, value]) => {
      const key = name.toLowerCase();
      if (key === 'date') return [name, 'a date'];
      if (key === 'x-request-id') return [name, value === requestId ? 'the one sent' : UUID.test(value) ? 'a new one' : value];
      if (key === 'ratelimit-remaining' || key === 'ratelimit-reset') return [name, 'a count'];
      if (key === 'retry-after' && answer.status === 429) return [name, 'seconds'];
      return [name, value];
    }),
  };
}

let sent = 0;

/**
 * Sends `request` to the fast server, then to Express alone, and expects the same answer, log line
 * and metric of both; `taken` says whether the fast path should have served it. Returns the fast one.
 */
async function expectSameAnswer(pair: Pair, request: Sent, taken: boolean): Promise<Answer> {
  sent += 1;
  // An id of the test's own, unless the case sends one.
  const ownId = request.headers && Object.keys(request.headers).some((n) => n.toLowerCase() === 'x-request-id') ? undefined : `case-${sent}`;
  const withId = (side: string): Sent => (ownId ? { ...request, headers: { ...request.headers, 'X-Request-Id': `${ownId}-${side}` } } : request);
  const servedBefore = pair.expressServed();
  const fast = await sendCounted(pair.fast, withId('fast'));
  expect({ taken: pair.expressServed() === servedBefore }).toEqual({ taken });
  const express = await sendCounted(pair.express, withId('express'));

  expect(comparable(fast.answer, ownId && `${ownId}-fast`)).toEqual(comparable(express.answer, ownId && `${ownId}-express`));
  expect(fast.counted).toEqual(express.counted);
  // One budget: the request to Express was counted after the fast one.
  const remaining = (answer: Answer) => header(answer, 'ratelimit-remaining');
  if (remaining(fast.answer) !== undefined) {
    expect(Number(remaining(express.answer))).toBe(Math.max(Number(remaining(fast.answer)) - 1, 0));
    expect(Math.abs(Number(header(fast.answer, 'ratelimit-reset')) - Number(header(express.answer, 'ratelimit-reset')))).toBeLessThanOrEqual(1);
  }
  if (ownId) {
    const line = (side: string) => pair.logged(`${ownId}-${side}`).map(({ timestamp: _t, ms: _ms, requestId: _id, ...rest }) => rest);
    expect(line('fast')).toEqual(line('express'));
    expect(line('fast')).toContainEqual(expect.objectContaining({ message: 'request', level: 'http' }));
  }
  return fast.answer;
}

const ping = (token: string | undefined, body: unknown, headers: Record<string, string | string[]> = {}): Sent => ({
  headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
  body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
});

describe('the position ping served ahead of Express', () => {
  let stack: TestStack;
  let pair: Pair;
  let token: string;
  beforeAll(async () => {
    stack = await stackWith();
    pair = await pairOf(stack);
    token = (await makeRider(stack.orm)).riderToken;
  });

  it('stores a position and answers 204 with the headers Express sends, helmet’s and the rate limit’s among them', async () => {
    const rider = await makeRider(stack.orm);
    const answer = await expectSameAnswer(pair, ping(rider.riderToken, { lat: 5.61, lng: -0.21 }), true);
    expect(answer.status).toBe(204);
    expect(answer.headers.map(([name]) => name.toLowerCase())).toEqual(
      expect.arrayContaining(['x-request-id', 'cross-origin-opener-policy', 'strict-transport-security', 'x-content-type-options', 'x-frame-options', 'ratelimit-remaining']),
    );
    const [row] = await stack.orm.em.fork().execute<{ lat: number; lng: number }[]>('select lat, lng from riders where id = ?', [rider.riderId]);
    // The Express request of the pair came second: its position is the one kept.
    expect(row).toEqual({ lat: 5.61, lng: -0.21 });
  });

  it('refuses what Express refuses, with the same status, envelope and headers', async () => {
    const expired = await makeRider(stack.orm, undefined, 'Ama Expired');
    await expireRiderToken(stack.orm, expired.riderId, { minutes: 1 });
    const valid = { lat: 5.55, lng: -0.2 };
    const cases: [string, Sent][] = [
      ['no token', ping(undefined, valid)],
      ['a malformed token', ping('rk_live_short', valid)],
      ['a token never issued', ping(generateSecret('live', 'rk'), valid)],
      ['an expired token', ping(expired.riderToken, valid)],
      ['two Authorization headers', ping(undefined, valid, { Authorization: [`Bearer ${token}`, `Bearer ${token}`] })],
      ['a token not of the Bearer scheme', ping(undefined, valid, { Authorization: `Basic ${token}` })],
      ['JSON cut short', ping(token, '{"lat": ')],
      ['a JSON string', ping(token, '"here"')],
      ['JSON null', ping(token, 'null')],
      ['a JSON number', ping(token, '42')],
      ['a JSON array', ping(token, '[5.55, -0.2]')],
      ['an empty body', ping(token, '')],
      ['white space', ping(token, '  \n ')],
      ['an empty object', ping(token, {})],
      ['a missing lng', ping(token, { lat: 5.55 })],
      ['wrong types', ping(token, { lat: '5.55', lng: null })],
      ['numbers as text', ping(token, { lat: '5.55', lng: '-0.2' })],
      ['off the globe', ping(token, { lat: 91, lng: -180.5 })],
      ['an infinite number', ping(token, '{"lat": 1e400, "lng": -0.2}')],
      ['bytes that are not UTF-8', ping(token, Buffer.from([0x7b, 0x22, 0x6c, 0x61, 0x74, 0x22, 0x3a, 0xff, 0x7d]))],
    ];
    for (const [what, request] of cases) {
      const answer = await expectSameAnswer(pair, request, true);
      expect({ what, status: answer.status }).toEqual({ what, status: what.includes('token') || what.includes('Authorization') ? 401 : 400 });
    }
  });

  it('takes what Express takes: extra fields, a byte-order mark, a charset, HTTP/1.0, an id of the client’s', async () => {
    const cases: Sent[] = [
      ping(token, { lat: 5.56, lng: -0.2, accuracy: 12, speed: 'fast' }),
      ping(token, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"lat": 5.57, "lng": -0.2}')])),
      ping(token, { lat: 5.58, lng: -0.2 }, { 'Content-Type': 'application/json; charset=UTF-8' }),
      { ...ping(token, { lat: 5.59, lng: -0.2 }), http10: true },
      { ...ping(token, { lat: 5.59, lng: -0.2 }), http10: true, noHost: true },
      ping(token, { lat: 5.6, lng: -0.2 }, { 'X-Request-Id': 'phone-42.a_b' }),
      // Not a sane id: a new one is given.
      ping(token, { lat: 5.6, lng: -0.2 }, { 'X-Request-Id': 'no spaces allowed' }),
    ];
    for (const request of cases) expect((await expectSameAnswer(pair, request, true)).status).toBe(204);
    expect(header(await send(pair.fast, cases[5]!), 'x-request-id')).toBe('phone-42.a_b');
  });

  it('leaves to Express every other method, path, framing and media type, which answer as before', async () => {
    const valid = JSON.stringify({ lat: 5.55, lng: -0.2 });
    const big = JSON.stringify({ lat: 5.55, lng: -0.2, note: 'x'.repeat(100_000) });
    const chunked = `${Buffer.byteLength(valid).toString(16)}\r\n${valid}\r\n0\r\n\r\n`;
    const cases: [Sent, number][] = [
      [ping(token, 'lat=5.55&lng=-0.2', { 'Content-Type': 'text/plain' }), 415],
      [ping(token, valid, { 'Content-Type': 'application/json; charset=latin1' }), 415],
      [ping(token, valid, { 'Content-Type': 'application/json; charset="utf-8"' }), 204],
      [{ headers: { Authorization: `Bearer ${token}` }, body: valid }, 415],
      [ping(token, big), 413],
      [ping(undefined, big), 401],
      [ping(token, chunked, { 'Transfer-Encoding': 'chunked' }), 204],
      [ping(token, gzipSync(valid), { 'Content-Encoding': 'gzip' }), 204],
      // Said to be JSON and framed by nothing: an empty body, as HTTP reads it.
      [{ headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` } }, 400],
      [{ ...ping(token, valid), noHost: true }, 400],
      [{ ...ping(token, valid), path: `${PATH}?at=now` }, 204],
      [{ ...ping(token, valid), path: `${PATH}/` }, 204],
      [{ ...ping(token, valid), path: PATH.toUpperCase() }, 204],
      [{ method: 'GET', headers: { Authorization: `Bearer ${token}` } }, 405],
      [{ ...ping(token, valid), method: 'PUT' }, 405],
      [{ method: 'HEAD', headers: { Authorization: `Bearer ${token}` } }, 405],
      [{ method: 'OPTIONS', headers: { Authorization: `Bearer ${token}` } }, 405],
      [{ method: 'DELETE' }, 401],
    ];
    for (const [request, status] of cases) {
      const answer = await expectSameAnswer(pair, request, false);
      expect({ request, status: answer.status }).toEqual({ request, status });
    }
  });
});

describe('the ping’s rate limits', () => {
  function expectRateLimited(answer: Answer, limit: number, per: string): void {
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'rate_limited', message: expect.stringContaining(`at most ${limit} a minute ${per}`), details: { limit, window_seconds: 60 } },
    });
    expect(header(answer, 'ratelimit-remaining')).toBe('0');
    expect(header(answer, 'ratelimit-policy')).toBe(`${limit};w=60`);
    expect(Number(header(answer, 'retry-after'))).toBeGreaterThan(0);
  }

  it('spends one budget per rider token with the rider’s other requests, and answers 429 past it as Express does', async () => {
    const stack = await stackWith({ RATE_LIMIT_RIDER_PER_MINUTE: '4' });
    const pair = await pairOf(stack);
    const { riderToken } = await makeRider(stack.orm);
    const offers = { method: 'GET', path: '/api/v1/rider/offers', headers: { Authorization: `Bearer ${riderToken}` } };
    const remaining = async (port: number, request: Sent) => header(await send(port, request), 'ratelimit-remaining');
    expect(await remaining(pair.express, offers)).toBe('3');
    expect(await remaining(pair.fast, ping(riderToken, { lat: 5.55, lng: -0.2 }))).toBe('2');
    expect(await remaining(pair.fast, offers)).toBe('1');
    expect(await remaining(pair.fast, ping(riderToken, { lat: 5.55, lng: -0.2 }))).toBe('0');
    const refused = await expectSameAnswer(pair, ping(riderToken, { lat: 5.55, lng: -0.2 }), true);
    expectRateLimited(refused, 4, 'per rider token');
    expectRateLimited(await send(pair.fast, offers), 4, 'per rider token');
    // Another rider has a budget of its own.
    expect((await send(pair.fast, ping((await makeRider(stack.orm)).riderToken, { lat: 5.55, lng: -0.2 }))).status).toBe(204);
  });

  it('spends the per-IP budget before the token is looked up, by the client address `trust proxy` believes', async () => {
    const stack = await stackWith({ RATE_LIMIT_RIDER_IP_PER_MINUTE: '2', TRUST_PROXY: '1' });
    const pair = await pairOf(stack);
    const { riderToken } = await makeRider(stack.orm);
    const from = (address: string, token?: string) => ping(token, { lat: 5.55, lng: -0.2 }, { 'X-Forwarded-For': address });
    expect((await send(pair.fast, from('203.0.113.1'))).status).toBe(401);
    expect((await send(pair.express, from('203.0.113.1'))).status).toBe(401);
    expectRateLimited(await expectSameAnswer(pair, from('203.0.113.1', riderToken), true), 2, 'per IP address');
    // What the client wrote before the proxy's hop is not believed; a new address is a new budget.
    expectRateLimited(await send(pair.fast, from('198.51.100.7, 203.0.113.1')), 2, 'per IP address');
    expect((await send(pair.fast, from('203.0.113.2', riderToken))).status).toBe(204);
  });

  it('shares the budget with another API process through the Postgres store', async () => {
    const env = { RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_RIDER_PER_MINUTE: '3' };
    const [first, second] = [await stackWith(env), await stackWith(env)];
    const { riderToken } = await makeRider(first.orm);
    const position = { lat: 5.55, lng: -0.2 };
    expect((await api(first.baseUrl, riderToken).post('/rider/location', position)).status).toBe(204);
    expect((await api(second.baseUrl, riderToken).get('/rider/offers')).status).toBe(200);
    expect((await api(second.baseUrl, riderToken).post('/rider/location', position)).status).toBe(204);
    const refused = await api(first.baseUrl, riderToken).post('/rider/location', position);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
  });
});

describe('the ping while Postgres is cut off', () => {
  it('answers 503 unavailable as Express does, and logs it the same way', async () => {
    const { orm, proxy } = await ormBehindProxy();
    proxies.push(proxy);
    orms.push(orm);
    const stack = await stackWith({}, orm);
    const { logger, lines } = capturingLogger('http', 'api');
    const { app, listener } = createApp({ ...stack.deps, logger });
    const [fast, express] = [await listen(listener), await listen(app)];
    const { riderToken } = await makeRider(orm);
    const request = ping(riderToken, { lat: 5.55, lng: -0.2 });
    // The token is known to both from here on: only the position's write needs Postgres.
    expect((await send(fast, request)).status).toBe(204);
    await proxy.cut();
    const answers = [await send(fast, request), await send(express, request)];
    expect(answers.map((a) => a.status)).toEqual([503, 503]);
    expect(comparable(answers[0]!, undefined)).toEqual(comparable(answers[1]!, undefined));
    expect(JSON.parse(answers[0]!.body).error.code).toBe('unavailable');
    expect(header(answers[0]!, 'retry-after')).toBe('5');
    const failures = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.level === 'error')
      .map(({ message, method, path }) => ({ message, method, path }));
    expect(failures).toEqual([
      { message: 'Backing service unavailable', method: 'POST', path: PATH },
      { message: 'Backing service unavailable', method: 'POST', path: PATH },
    ]);
  });
});
