import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { api } from '../helpers/http';
import { COUNT_TRUSTED_FOR_MS, PostgresRateLimitStore } from '../../api/middleware/rate-limit-store';
import { RateLimitWriter } from '../../api/middleware/rate-limit-writer';
import { clearRateLimits, rateLimitHits } from '../helpers/db-requests';

const stacks: TestStack[] = [];
/** Stores in these tests write their counted hits when told to (`flush`), not on a timer. */
const NO_TIMED_WRITES = 10 * 60_000;
async function stackWith(env: Record<string, string>): Promise<TestStack> {
  const stack = await startTestStack({ env, withoutWorker: true });
  stacks.push(stack);
  return stack;
}
/** A process's writer of counted hits that writes when told to. */
const writerOf = (stack: TestStack): RateLimitWriter => new RateLimitWriter(stack.orm, NO_TIMED_WRITES);
/** Two stores on one prefix and budget, as two API processes hold them. */
function storesOfTwoProcesses(stack: TestStack, prefix: string, limit: number): [PostgresRateLimitStore, PostgresRateLimitStore] {
  const store = (): PostgresRateLimitStore => {
    const one = new PostgresRateLimitStore(stack.orm, prefix, writerOf(stack));
    one.init({ windowMs: 60_000, limit } as never);
    return one;
  };
  return [store(), store()];
}

afterAll(async () => {
  await Promise.all(stacks.map((s) => s.close()));
});

function expectRateLimited(res: { status: number; headers: Headers; body: any }, limit: number): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String), details: { limit, window_seconds: 60 } } });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(Number(res.headers.get('ratelimit-reset'))).toBe(retryAfter);
  expect(res.headers.get('ratelimit-policy')).toBe(`${limit};w=60`);
}

describe('rate limits', () => {
  it('lets a partner polling twenty deliveries every 5 seconds for a minute through with the default limits', async () => {
    const stack = await stackWith({});
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    // 20 deliveries × 12 polls a minute, sent as fast as possible.
    const statuses: number[] = [];
    for (let batch = 0; batch < 12; batch += 1) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => client.get('/partner/deliveries?limit=1')));
      statuses.push(...answers.map((a) => a.status));
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const last = await client.get('/partner/deliveries?limit=1');
    expect(last.headers.get('ratelimit-remaining')).toBe(String(600 - 241));
    expect(last.headers.get('ratelimit-limit')).toBe('600');
  });

  it('answers 429 rate_limited with Retry-After and RateLimit headers once an API key spends its budget, and counts each key apart', async () => {
    const stack = await stackWith({ RATE_LIMIT_PARTNER_PER_MINUTE: '5' });
    const partner = await makePartner(stack.orm);
    const live = api(stack.baseUrl, partner.liveKey);
    for (let i = 0; i < 5; i += 1) {
      const res = await live.get('/partner/deliveries');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(4 - i));
    }
    expectRateLimited(await live.get('/partner/deliveries'), 5);
    expectRateLimited(await live.post('/partner/payment-methods', { provider: 'network_a', phone: '+233241230001' }), 5);
    // The same partner's other key has a budget of its own, and so has another partner.
    expect((await api(stack.baseUrl, partner.testKey).get('/partner/deliveries')).status).toBe(200);
    const other = await makePartner(stack.orm);
    expect((await api(stack.baseUrl, other.liveKey).get('/partner/deliveries')).status).toBe(200);
  });

  it('limits the rider API per rider token, each rider on a budget of its own', async () => {
    const stack = await stackWith({ RATE_LIMIT_RIDER_PER_MINUTE: '3' });
    const rider = api(stack.baseUrl, (await makeRider(stack.orm)).riderToken);
    for (let i = 0; i < 3; i += 1) {
      const res = await rider.post('/rider/location', { lat: 5.55, lng: -0.2 });
      expect(res.status).toBe(204);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(2 - i));
    }
    expectRateLimited(await rider.get('/rider/offers'), 3);
    expect((await api(stack.baseUrl, (await makeRider(stack.orm)).riderToken).get('/rider/offers')).status).toBe(200);
    // A request without a valid token is refused before it is counted.
    expect((await api(stack.baseUrl).get('/rider/offers')).status).toBe(401);
  });

  it('limits the public tracking view and place search per client IP, with CORS headers on the refusal', async () => {
    const stack = await stackWith({ RATE_LIMIT_PUBLIC_PER_MINUTE: '3', RATE_LIMIT_PLACES_PER_MINUTE: '2' });
    const anyone = api(stack.baseUrl);
    const unknown = '/track/00000000-0000-4000-8000-000000000000/public';
    for (let i = 0; i < 3; i += 1) expect((await anyone.get(unknown)).status).toBe(404);
    const refused = await anyone.get(unknown);
    expectRateLimited(refused, 3);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    // Retry-After and RateLimit are not CORS-safelisted: a page on another origin reads them only when exposed.
    expect(refused.headers.get('access-control-expose-headers')?.split(/,\s*/)).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy']));

    expect((await anyone.get('/places/autocomplete?q=Makola')).status).toBe(200);
    expect((await anyone.get('/places/autocomplete?q=Osu')).status).toBe(200);
    expectRateLimited(await anyone.get('/places/autocomplete?q=Legon'), 2);
  });

  it('shares one budget between two API processes when the Postgres store is configured', async () => {
    const env = { RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_PARTNER_PER_MINUTE: '6', RATE_LIMIT_PUBLIC_PER_MINUTE: '4' };
    const first = await stackWith(env);
    const second = await stackWith(env);
    const partner = await makePartner(first.orm);
    const viaFirst = api(first.baseUrl, partner.liveKey);
    const viaSecond = api(second.baseUrl, partner.liveKey);
    const statuses = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await (i % 2 ? viaSecond : viaFirst).get('/partner/deliveries')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expectRateLimited(await viaFirst.get('/partner/deliveries'), 6);
    expectRateLimited(await viaSecond.get('/partner/deliveries'), 6);

    // Concurrent requests through both processes never overspend the budget.
    const other = await makePartner(first.orm);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api((i % 2 ? second : first).baseUrl, other.liveKey).get('/partner/deliveries')),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(6);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(14);

    // Per IP too: this test is the only user of the shared counters for the loopback address.
    await clearRateLimits(first.orm, 'track:');
    const unknown = '/track/00000000-0000-4000-8000-000000000000/public';
    const publicStatuses = [];
    for (let i = 0; i < 5; i += 1) publicStatuses.push((await api(i % 2 ? second.baseUrl : first.baseUrl).get(unknown)).status);
    expect(publicStatuses).toEqual([404, 404, 404, 404, 429]);
  });

  it('counts hits in Postgres per key, and starts a new window once the old one has passed', async () => {
    const stack = await stackWith({});
    const store = new PostgresRateLimitStore(stack.orm, `store-test-${Date.now()}`);
    // Long enough that a loaded machine's round trips all land in the first window.
    store.init({ windowMs: 2_000 } as never);
    const first = await store.increment('k1');
    expect(first.totalHits).toBe(1);
    expect(first.resetTime!.getTime()).toBeGreaterThan(Date.now());
    expect(first.resetTime!.getTime()).toBeLessThanOrEqual(Date.now() + 2_000);
    expect((await store.increment('k1')).totalHits).toBe(2);
    expect((await store.increment('k2')).totalHits).toBe(1);
    const third = await store.increment('k1');
    expect(third.totalHits).toBe(3);
    expect(third.resetTime).toEqual(first.resetTime);
    expect((await store.get('k1'))?.totalHits).toBe(3);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, first.resetTime!.getTime() - Date.now()) + 100));
    const fresh = await store.increment('k1');
    expect(fresh.totalHits).toBe(1);
    expect(fresh.resetTime!.getTime()).toBeGreaterThan(first.resetTime!.getTime());
  });

  it('counts the first half of a large budget in the process and writes it in batches, the second half one hit at a time', async () => {
    const stack = await stackWith({});
    const store = new PostgresRateLimitStore(stack.orm, `batch-test-${Date.now()}`, writerOf(stack));
    store.init({ windowMs: 60_000, limit: 200 } as never);
    const written = () => rateLimitHits(stack.orm, `${store.prefix}:k`);

    const totals: number[] = [];
    for (let i = 0; i < 100; i += 1) totals.push((await store.increment('k')).totalHits);
    expect(totals).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // Only the window's first hit went to Postgres.
    expect(await written()).toBe(1);
    await store.flush();
    expect(await written()).toBe(100);

    // Past half the budget every hit is written before it is answered.
    expect((await store.increment('k')).totalHits).toBe(101);
    expect(await written()).toBe(101);
    store.shutdown();
  });

  it("writes the counted hits of a process's budgets together, each key with its own window", async () => {
    const stack = await stackWith({});
    const writer = writerOf(stack);
    const perMinute = new PostgresRateLimitStore(stack.orm, `minute-test-${Date.now()}`, writer);
    perMinute.init({ windowMs: 60_000, limit: 200 } as never);
    const perHour = new PostgresRateLimitStore(stack.orm, `hour-test-${Date.now()}`, writer);
    perHour.init({ windowMs: 3_600_000, limit: 1000 } as never);
    // Each key's first hit is written at once; the next ones are counted in the process.
    for (let i = 0; i < 5; i += 1) await perMinute.increment('k');
    for (let i = 0; i < 7; i += 1) await perHour.increment('k');
    expect([await rateLimitHits(stack.orm, `${perMinute.prefix}:k`), await rateLimitHits(stack.orm, `${perHour.prefix}:k`)]).toEqual([1, 1]);

    await writer.flush();
    expect([await rateLimitHits(stack.orm, `${perMinute.prefix}:k`), await rateLimitHits(stack.orm, `${perHour.prefix}:k`)]).toEqual([5, 7]);
    const [minute, hour] = [await perMinute.get('k'), await perHour.get('k')];
    // Neither window was stretched or cut to the other's.
    expect(minute!.resetTime!.getTime() - Date.now()).toBeLessThanOrEqual(60_000);
    expect(hour!.resetTime!.getTime() - Date.now()).toBeGreaterThan(59 * 60_000);
    writer.shutdown();
  });

  it('never lets two processes together overspend a large budget, and counts hits on a spent budget without a write each', async () => {
    const stack = await stackWith({});
    const prefix = `shared-test-${Date.now()}`;
    const [first, second] = storesOfTwoProcesses(stack, prefix, 200);
    const written = () => rateLimitHits(stack.orm, `${prefix}:k`);

    for (let i = 0; i < 60; i += 1) await first.increment('k');
    await first.flush();
    // The other process has not seen the key: it asks, and then counts on top of what it heard.
    expect((await second.increment('k')).totalHits).toBe(61);
    for (let i = 0; i < 39; i += 1) await second.increment('k');
    await second.flush();
    expect(await written()).toBe(100);
    // The first process heard 60 under a second ago, so it still counts on top of that (the
    // documented bound: within a second, in the first half of the budget); its write corrects it.
    expect((await first.increment('k')).totalHits).toBe(61);
    await first.flush();
    expect(await written()).toBe(101);

    // 150 hits at once through both: the budget's second half is counted exactly.
    const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => (i % 2 ? second : first).increment('k')));
    const totals = answers.map((a) => a.totalHits).sort((a, b) => a - b);
    expect(totals).toEqual(Array.from({ length: 150 }, (_, i) => 102 + i));
    expect(totals.filter((t) => t <= 200)).toHaveLength(99);
    expect(await written()).toBe(251);

    // The budget is spent: once the process knows it, more hits are counted in the process and written together.
    expect((await first.increment('k')).totalHits).toBeGreaterThan(200);
    const afterOne = await written();
    const later = [];
    for (let i = 0; i < 9; i += 1) later.push((await first.increment('k')).totalHits);
    expect(Math.min(...later)).toBeGreaterThan(200);
    expect(await written()).toBe(afterOne);
    await first.flush();
    expect(await written()).toBe(261);
    first.shutdown();
    second.shutdown();
  });

  it('asks Postgres again once the count it heard is a second old', async () => {
    const stack = await stackWith({});
    const prefix = `trust-test-${Date.now()}`;
    const [first, second] = storesOfTwoProcesses(stack, prefix, 1000);
    for (let i = 0; i < 5; i += 1) await first.increment('k');
    await first.flush();
    for (let i = 0; i < 10; i += 1) await second.increment('k');
    await second.flush();
    await new Promise((resolve) => setTimeout(resolve, COUNT_TRUSTED_FOR_MS + 100));
    // Counted on top of its old 5 it would answer 6; it asks, and sees the other process's hits.
    expect((await first.increment('k')).totalHits).toBe(16);
    first.shutdown();
    second.shutdown();
  });

  it('starts a new window for hits counted in the process once the old one has passed', async () => {
    const stack = await stackWith({});
    const store = new PostgresRateLimitStore(stack.orm, `window-test-${Date.now()}`);
    store.init({ windowMs: 300, limit: 1000 } as never);
    const first = await store.increment('k');
    for (let i = 0; i < 4; i += 1) await store.increment('k');
    expect((await store.increment('k')).totalHits).toBe(6);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const fresh = await store.increment('k');
    expect(fresh.totalHits).toBe(1);
    expect(fresh.resetTime!.getTime()).toBeGreaterThan(first.resetTime!.getTime());
    store.shutdown();
  });

  it('answers a large shared budget exactly through HTTP: every allowed request is counted, then 429', async () => {
    const stack = await stackWith({ RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_PARTNER_PER_MINUTE: '120' });
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    const remaining: string[] = [];
    for (let i = 0; i < 70; i += 1) remaining.push((await client.get('/partner/deliveries?limit=1')).headers.get('ratelimit-remaining') ?? '');
    expect(remaining).toEqual(Array.from({ length: 70 }, (_, i) => String(119 - i)));
    const burst = await Promise.all(Array.from({ length: 60 }, () => client.get('/partner/deliveries?limit=1')));
    expect(burst.filter((a) => a.status === 200)).toHaveLength(50);
    expectRateLimited(burst.find((a) => a.status === 429)!, 120);
  });
});
