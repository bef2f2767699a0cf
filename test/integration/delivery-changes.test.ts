import { startTestStack, type TestStack } from '../helpers/stack';
import { eventually } from '../helpers/http';
import { book, livePartner, stopBody } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { readOutbox } from '../../db/sms-outbox';

/** `PATCH /partner/deliveries/{id}`: who receives each drop, and what the parcel is, until its hand-over. */

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

/** The code texted to `phone` for this delivery, newest first. */
async function codeTexted(phone: string, reference: string, after: Set<string> = new Set()): Promise<string> {
  const message = await eventually(
    async () => (await readOutbox(stack.orm.em.fork(), phone)).find((m) => m.body.includes(reference) && !after.has(m.body)),
    10_000,
    `a code texted to ${phone}`,
  );
  return /(\d{6})$/.exec(message.body)?.[1] as string;
}

describe('changing a booking', () => {
  it("changes the recipients and the parcel at once, in the partner's record and the rider's job, with no webhook", async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()], package_description: 'Two boxes' });
    await rider.take(created.id);

    const changed = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, {
      recipient_name: 'Efua Mensah',
      package_description: null,
      additional_stops: [{ index: 0, recipient_name: 'Kwame Boateng', recipient_phone: '+233201234567' }],
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: created.id, status: 'accepted', recipient_name: 'Efua Mensah', package_description: null });
    expect(changed.body.recipient_phone).toBe(created.recipient_phone);
    expect(changed.body.additional_stops[0]).toMatchObject({ recipient_name: 'Kwame Boateng', recipient_phone: '+233201234567' });
    expect(changed.body.events.map((e: { status: string }) => e.status)).toEqual(['pending', 'accepted']);
    const read = (await partner.client.get(`/partner/deliveries/${created.id}`)).body;
    expect([read.recipient_name, read.package_description, read.additional_stops[0].recipient_name]).toEqual(['Efua Mensah', null, 'Kwame Boateng']);

    const job = (await rider.client.get('/rider/deliveries/current')).body;
    expect(job.recipient_name).toBe('Efua Mensah');
    expect(job.stops[0].recipient_name).toBe('Kwame Boateng');
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
  });

  it('texts a new code to a changed phone on an otp delivery; the old code no longer delivers, the new one does', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, { verification_method: 'otp', recipient_phone: '+233244110011' });
    const oldCode = await codeTexted('+233244110011', created.reference);

    const changed = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, { recipient_phone: '+233244110022' }, { 'Idempotency-Key': 'new-phone' });
    expect(changed.status).toBe(200);
    expect(changed.body.recipient_phone).toBe('+233244110022');
    const newCode = await codeTexted('+233244110022', created.reference);
    // The same change sent again is answered as before, and texts nobody again.
    const repeat = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, { recipient_phone: '+233244110022' }, { 'Idempotency-Key': 'new-phone' });
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body).toEqual(changed.body);
    expect((await readOutbox(stack.orm.em.fork(), '+233244110022')).filter((m) => m.body.includes(created.reference))).toHaveLength(1);

    await rider.take(created.id);
    await rider.pickup(created.id);
    await rider.depart(created.id);
    if (oldCode !== newCode) {
      const refused = await rider.deliver(created.id, { otp: oldCode });
      expect(refused.status).toBe(400);
    }
    expect((await rider.deliver(created.id, { otp: newCode })).status).toBe(200);
  });

  it('refuses a stop already handed over, and any change once delivered, with the status in details; nothing changes', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm);
    const created = await book(stack.baseUrl, partner.liveKey, { additional_stops: [stopBody()] });
    await rider.take(created.id);
    await rider.pickup(created.id);
    await rider.depart(created.id);
    await rider.completeStop(created.id, 0);

    const late = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, { additional_stops: [{ index: 0, recipient_name: 'Too late' }] });
    expect(late.status).toBe(400);
    expect(late.body.error).toMatchObject({ code: 'bad_request', details: { status: 'in_transit', additional_stops: 'stop 0 is already handed over' } });
    const missing = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, { additional_stops: [{ index: 3, recipient_name: 'Nobody' }] });
    expect(missing.status).toBe(400);

    await rider.deliver(created.id);
    const ended = await partner.client.call('PATCH', `/partner/deliveries/${created.id}`, { recipient_name: 'After the fact' });
    expect(ended.status).toBe(400);
    expect(ended.body.error.details.status).toBe('delivered');
    expect((await partner.client.get(`/partner/deliveries/${created.id}`)).body.recipient_name).toBe(created.recipient_name);
  });

  it('refuses what it cannot change (an address, an unknown field, nothing at all, a bad phone), and other partners’ deliveries', async () => {
    const partner = await livePartner(stack);
    const created = await book(stack.baseUrl, partner.liveKey);
    const patch = (body: unknown) => partner.client.call('PATCH', `/partner/deliveries/${created.id}`, body);
    for (const body of [{ dropoff_lat: 5.6 }, { recipient_name: 'Ama', dropoff_address: 'Osu' }, {}, { recipient_phone: '0244' }, { additional_stops: [{ index: 0 }] }, { recipient_name: '' }]) {
      const res = await patch(body);
      expect([JSON.stringify(body), res.status, res.body.error?.code]).toEqual([JSON.stringify(body), 400, 'bad_request']);
    }
    expect((await patch({ dropoff_lat: 5.6 })).body.error.details).toEqual({ dropoff_lat: 'cannot be changed' });
    const other = await livePartner(stack);
    expect((await other.client.call('PATCH', `/partner/deliveries/${created.id}`, { recipient_name: 'Mine now' })).status).toBe(404);
    expect((await partner.client.get(`/partner/deliveries/${created.id}`)).body.recipient_name).toBe(created.recipient_name);
    await partner.client.post(`/partner/deliveries/${created.id}/cancel`);
  });
});
