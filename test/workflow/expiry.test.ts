import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';

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

  it('withdraws the offers when it expires: the job leaves the rider\'s list and a late accept is refused', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    await eventually(async () => (await client.get(`/partner/deliveries/${created.id}`)).body.status === 'expired', 10_000, 'expiry');

    const offers = (await rider.client.get('/rider/offers')).body as { delivery_id: string }[];
    expect(offers.some((o) => o.delivery_id === created.id)).toBe(false);
    const late = await rider.client.post(`/rider/deliveries/${created.id}/accept`);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('conflict');
    const view = await api(stack.baseUrl).get(`/track/${created.id}/public`);
    expect(view.body).toMatchObject({ status: 'expired', rider: null, eta_min: null });
  });

  it('counts the deadline of a scheduled booking from its dispatch time, not from the booking', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const at = Date.now() + 4_000;
    const created = await book(stack.baseUrl, partner.liveKey, { scheduled_at: new Date(at).toISOString() });
    const client = api(stack.baseUrl, partner.liveKey);
    // Past the 1.5 s deadline counted from booking, but not yet time to dispatch (timed from the
    // request, so a slow answer does not push the look past the dispatch).
    await new Promise((resolve) => setTimeout(resolve, at - 1_000 - Date.now()));
    expect((await client.get(`/partner/deliveries/${created.id}`)).body.status).toBe('pending');
    const expired = await eventually(async () => {
      const res = await client.get(`/partner/deliveries/${created.id}`);
      return res.body.status === 'expired' ? res.body : undefined;
    }, 10_000, 'expiry');
    const expiredAt = Date.parse(expired.events.find((e: { status: string }) => e.status === 'expired').created_at);
    expect(expiredAt).toBeGreaterThanOrEqual(at + 1_500);
  });
});
