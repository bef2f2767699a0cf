import { startTestStack, type TestStack } from '../helpers/stack';

// TRUST_PROXY decides whose X-Forwarded-For names the client, and so which budget a request
// spends on the per-IP limits: only the configured hops are believed.

const stacks: TestStack[] = [];
afterAll(async () => {
  await Promise.all(stacks.map((s) => s.close()));
});

async function stackTrusting(trustProxy: string | undefined): Promise<TestStack> {
  const env: Record<string, string> = { RATE_LIMIT_PUBLIC_PER_MINUTE: '100' };
  if (trustProxy !== undefined) env.TRUST_PROXY = trustProxy;
  const stack = await startTestStack({ env, withoutWorker: true });
  stacks.push(stack);
  return stack;
}

/** What is left of the tracking budget of the client this request is counted against. */
async function remainingAfter(stack: TestStack, forwardedFor?: string): Promise<number> {
  const response = await fetch(`${stack.baseUrl}/api/v1/track/no-such-token`, { headers: forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {} });
  await response.arrayBuffer();
  return Number(response.headers.get('ratelimit-remaining'));
}

describe('the client address behind proxies (TRUST_PROXY)', () => {
  it('ignores X-Forwarded-For when no proxy is trusted, the default outside production', async () => {
    const stack = await stackTrusting(undefined);
    expect(await remainingAfter(stack, '203.0.113.1')).toBe(99);
    // A new forwarded address buys no new budget: every request is the test's own socket.
    expect(await remainingAfter(stack, '203.0.113.2')).toBe(98);
    expect(await remainingAfter(stack)).toBe(97);
  });

  it('with one hop, counts the address the proxy appended and ignores what the client wrote before it', async () => {
    const stack = await stackTrusting('1');
    expect(await remainingAfter(stack, '203.0.113.1')).toBe(99);
    expect(await remainingAfter(stack, '203.0.113.2')).toBe(99);
    expect(await remainingAfter(stack, '203.0.113.2')).toBe(98);
    // A client's own X-Forwarded-For comes first; the proxy appends the address it saw.
    expect(await remainingAfter(stack, '198.51.100.9, 203.0.113.2')).toBe(97);
    expect(await remainingAfter(stack, '198.51.100.10, 203.0.113.2')).toBe(96);
  });

  it('with two hops, believes the second proxy too, and no further', async () => {
    const stack = await stackTrusting('2');
    expect(await remainingAfter(stack, '198.51.100.9, 203.0.113.2')).toBe(99);
    expect(await remainingAfter(stack, '198.51.100.10, 203.0.113.2')).toBe(99);
    expect(await remainingAfter(stack, '192.0.2.1, 198.51.100.10, 203.0.113.2')).toBe(98);
  });

  it('with subnets, believes only peers inside them', async () => {
    // The test connects from loopback: trusted with `loopback`, not with a subnet elsewhere.
    const loopback = await stackTrusting('loopback');
    expect(await remainingAfter(loopback, '203.0.113.1')).toBe(99);
    expect(await remainingAfter(loopback, '203.0.113.2')).toBe(99);
    const elsewhere = await stackTrusting('10.0.0.0/8, 192.168.1.10');
    expect(await remainingAfter(elsewhere, '203.0.113.1')).toBe(99);
    expect(await remainingAfter(elsewhere, '203.0.113.2')).toBe(98);
  });
});
