import { bookingBody, registerAccount } from '../helpers/bookings';
import { api } from '../helpers/http';
import { makePartner } from '../helpers/partners';
import { startTestStack, type TestStack } from '../helpers/stack';

// The list is read from Postgres; no worker is needed for the bookings to be listed.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ withoutWorker: true });
});
afterAll(async () => {
  await stack?.close();
});

describe('GET /partner/deliveries', () => {
  it('answers a plain array, newest first, 20 by default, paged by offset until a page comes back short', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    const booked: string[] = [];
    for (let i = 0; i < 23; i += 1) {
      const res = await client.post('/partner/deliveries', bookingBody({ package_description: `parcel ${i}` }));
      expect(res.status).toBe(201);
      booked.push(res.body.id);
    }
    const newestFirst = [...booked].reverse();

    const first = await client.get('/partner/deliveries');
    expect(first.status).toBe(200);
    expect(Array.isArray(first.body)).toBe(true);
    expect(first.body.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(0, 20));
    expect(first.body[0]).toMatchObject({ id: booked[22], status: 'pending', payment_status: expect.any(String) });

    const second = await client.get('/partner/deliveries?limit=20&offset=20');
    expect(second.body.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(20));

    const pages: string[] = [];
    for (let offset = 0; ; offset += 7) {
      const page = (await client.get(`/partner/deliveries?limit=7&offset=${offset}`)).body as { id: string }[];
      pages.push(...page.map((d) => d.id));
      if (page.length < 7) break;
    }
    expect(pages).toEqual(newestFirst);
  });
});
