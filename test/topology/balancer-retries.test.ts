import { startComposeNginx, startStandInApi, startTopologyHaproxy, type Balancer, type StandInApi } from '../helpers/balancers';

/**
 * Both balancers in front of the API processes, run for real: HAProxy with the topology's config
 * (`npm run topology`) and nginx with the compose stack's. Behind each, api-1 dies under every
 * request it is sent, as a process killed mid-request does, and api-2 answers. A request that is
 * harmless to send twice (a read, a PUT or DELETE, one with an Idempotency-Key) must reach
 * api-2 and be answered; any other is never sent twice.
 */
interface Sent {
  status: number;
  answeredBy?: string;
}

const BALANCERS: [string, (apis: StandInApi[]) => Promise<Balancer>][] = [
  ['HAProxy (npm run topology)', startTopologyHaproxy],
  ['nginx (the compose stack)', startComposeNginx],
];

describe.each(BALANCERS)('%s in front of an API process that dies under each request', (_name, startBalancer) => {
  let dying: StandInApi;
  let live: StandInApi;
  let balancer: Balancer | undefined;

  beforeAll(async () => {
    dying = await startStandInApi('api-1', { dies: true });
    live = await startStandInApi('api-2', { dies: false });
    balancer = await startBalancer([dying, live]);
  });

  afterAll(async () => {
    await balancer?.stop();
    await dying?.close();
    await live?.close();
  });

  beforeEach(() => {
    dying.received.length = 0;
    live.received.length = 0;
  });

  /** One request through the balancer; status 0 when the connection ended without an answer. */
  async function send(method: string, url: string, { body, key }: { body?: unknown; key?: string } = {}): Promise<Sent> {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (key) headers['idempotency-key'] = key;
    try {
      const res = await fetch(`${balancer!.baseUrl}${url}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      return { status: res.status, answeredBy: res.ok ? (JSON.parse(text) as { answeredBy: string }).answeredBy : undefined };
    } catch {
      return { status: 0 };
    }
  }

  /** `count` requests one after another, so they take turns between the two processes. */
  async function sendEach<T>(count: number, one: (n: number) => Promise<T>): Promise<T[]> {
    const results: T[] = [];
    for (let n = 1; n <= count; n++) results.push(await one(n));
    return results;
  }

  it('answers every read, from the other process when the one it reached dies under it', async () => {
    const reads = await sendEach(6, (n) => send('GET', `/api/v1/partner/deliveries/${n}`));

    expect(reads).toEqual(Array.from({ length: 6 }, () => ({ status: 200, answeredBy: 'api-2' })));
    // The dying process did take reads, and each of those was then answered by the other.
    expect(dying.received.length).toBeGreaterThan(0);
    expect(live.received.map((r) => r.url).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `/api/v1/partner/deliveries/${i + 1}`).sort());
  });

  it('sends a request with an Idempotency-Key on to the other process, with its path, query and body', async () => {
    const sent = await sendEach(4, (n) => send('POST', `/api/v1/partner/deliveries?attempt=${n}`, { body: { n }, key: `key-${n}` }));

    expect(sent).toEqual(Array.from({ length: 4 }, () => ({ status: 201, answeredBy: 'api-2' })));
    expect(dying.received.filter((r) => r.idempotencyKey).length).toBeGreaterThan(0);
    expect(live.received.map(({ method, url, body, idempotencyKey }) => ({ method, url, body, idempotencyKey }))).toEqual(
      Array.from({ length: 4 }, (_, i) => ({
        method: 'POST',
        url: `/api/v1/partner/deliveries?attempt=${i + 1}`,
        body: JSON.stringify({ n: i + 1 }),
        idempotencyKey: `key-${i + 1}`,
      })),
    );
  });

  it('sends a PUT or a DELETE on to the other process, as HTTP defines both as idempotent', async () => {
    const sent = [
      ...(await sendEach(2, (n) => send('PUT', '/api/v1/partner/webhook', { body: { webhook_url: `https://example.com/${n}` } }))),
      ...(await sendEach(2, (n) => send('DELETE', `/api/v1/partner/payment-methods/${n}`))),
    ];

    expect(sent).toEqual(Array.from({ length: 4 }, () => ({ status: 200, answeredBy: 'api-2' })));
    expect(dying.received.length).toBeGreaterThan(0);
  });

  it('never sends a request without a key twice: the partner is told it failed instead', async () => {
    const sent = await sendEach(4, (n) => send('POST', '/api/v1/partner/deliveries', { body: { n } }));

    const taken = (api: StandInApi) => api.received.map((r) => r.body);
    expect(taken(dying).length).toBeGreaterThan(0);
    // Each booking reached one process only: those the dying one took never reached the other.
    expect(taken(dying).filter((body) => taken(live).includes(body))).toEqual([]);
    expect([...taken(dying), ...taken(live)].sort()).toEqual([1, 2, 3, 4].map((n) => JSON.stringify({ n })));
    expect(sent.filter((s) => s.status === 201)).toHaveLength(taken(live).length);
    expect(sent.filter((s) => s.status !== 201).every((s) => s.status === 0 || s.status === 502)).toBe(true);
  });
});
