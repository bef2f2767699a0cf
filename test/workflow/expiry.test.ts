import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env: { DISPATCH_TIMEOUT_SECONDS: '1.5', DISPATCH_WIDEN_SECONDS: '0.5' } });
});
afterAll(async () => {
  await stack?.close();
});

describe('the dispatch deadline', () => {
  it('expires a delivery no rider accepts before the deadline', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const created = await book(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    const expired = await eventually(async () => {
      const res = await client.get(`/partner/deliveries/${created.id}`);
      return res.body.status === 'expired' ? res.body : undefined;
    }, 10_000, 'expiry');
    expect(expired.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'expired']);
    const cancel = await client.post(`/partner/deliveries/${created.id}/cancel`);
    expect(cancel.status).toBe(400);
    expect(cancel.body.error.details.status).toBe('expired');
  });
});
