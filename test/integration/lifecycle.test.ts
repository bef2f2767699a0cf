import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, registerAccount } from '../helpers/bookings';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

describe('delivery lifecycle over HTTP', () => {
  it('drives a test-mode delivery to delivered with the robo rider', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const created = await book(stack.baseUrl, partner.testKey);
    expect(created.status).toBe('pending');
    expect(created.rider_id).toBeNull();
    expect(created.payment_status).toBe('pending');
    const client = api(stack.baseUrl, partner.testKey);
    const done = await eventually(async () => {
      const res = await client.get(`/partner/deliveries/${created.id}`);
      return res.body.status === 'delivered' && res.body.payment_status === 'paid' ? res.body : undefined;
    }, 20_000, 'robo delivery');
    expect(done.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
    expect(done.rider_id).toEqual(expect.any(String));
  });

  it('lets the first of two riders win the job and walks it to delivered', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const first = await makeRider(stack.orm, ACCRA.makola, 'Kofi Mensah');
    const second = await makeRider(stack.orm, ACCRA.makola, 'Esi Owusu');
    const created = await book(stack.baseUrl, partner.liveKey);
    const riderA = api(stack.baseUrl, first.riderToken);
    const riderB = api(stack.baseUrl, second.riderToken);
    await eventually(async () => (await riderA.get('/rider/offers')).body.some((o: { delivery_id: string }) => o.delivery_id === created.id), 10_000, 'offer');
    await eventually(async () => (await riderB.get('/rider/offers')).body.length > 0, 10_000, 'offer to B');
    const [a, b] = await Promise.all([
      riderA.post(`/rider/deliveries/${created.id}/accept`),
      riderB.post(`/rider/deliveries/${created.id}/accept`),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? riderA : riderB;
    expect((await winner.post(`/rider/deliveries/${created.id}/pickup`)).status).toBe(200);
    expect((await winner.post(`/rider/deliveries/${created.id}/depart`)).status).toBe(200);
    const delivered = await winner.post(`/rider/deliveries/${created.id}/deliver`);
    expect(delivered.status).toBe(200);
    const record = await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${created.id}`);
    expect(record.body.status).toBe('delivered');
    expect(record.body.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'accepted', 'picked_up', 'in_transit', 'delivered']);
  });
});
