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
  it('withdraws the offers when it expires: the job leaves the rider\'s list and a late accept is refused', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    // A pickup of this test's own, with the rider on it: dispatch offers a job to the nearest riders
    // only, and other suites leave riders online at the usual pickup, so ours might get no offer.
    const pickup = { lat: 5.5712, lng: -0.2231 };
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Kofi Mensah', pickup);
    const created = await book(stack.baseUrl, partner.liveKey, { pickup_lat: pickup.lat, pickup_lng: pickup.lng });
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
});
