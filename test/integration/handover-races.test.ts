import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { book, registerAccount, stopBody } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { api, eventually } from '../helpers/http';
import { webhookEventsOf } from '../helpers/db-webhooks';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

/** A live delivery a rider has taken, picked up and set off with. */
async function onItsWay(booking: Record<string, unknown>) {
  const partner = await makePartner(stack.orm);
  await registerAccount(stack.baseUrl, partner.liveKey);
  const rider = await riderApp(stack.baseUrl, stack.orm, 'Kofi Double Tap');
  const created = await book(stack.baseUrl, partner.liveKey, booking);
  await rider.take(created.id);
  await rider.pickup(created.id);
  await rider.depart(created.id);
  return { partner, rider, created };
}

/** The same hand-over tapped ten times at once, as a rider's app on a bad network might send it. */
async function tenAtOnce(riderToken: string, path: string, body: () => FormData | undefined) {
  return Promise.all(
    Array.from({ length: 10 }, async () => {
      const form = body();
      const res = await fetch(`${stack.baseUrl}/api/v1${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${riderToken}`, ...(form ? {} : { 'Content-Type': 'application/json' }) },
        body: form ?? '{}',
      });
      return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string; details: object } } };
    }),
  );
}

function photoForm(): FormData {
  const form = new FormData();
  form.append('photo', new Blob([PNG], { type: 'image/png' }), 'handover.png');
  return form;
}

describe('one hand-over, however many taps', () => {
  const bodies: [string, () => FormData | undefined][] = [
    ['none', () => undefined],
    ['photo', photoForm],
  ];
  it.each(bodies)('delivers a %s job once when ten deliver requests arrive together: one 200, the rest refused, one webhook', async (method, body) => {
    const { partner, rider, created } = await onItsWay({ verification_method: method });
    const answers = await tenAtOnce(rider.riderToken, `/rider/deliveries/${created.id}/deliver`, body);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'bad_request', details: { status: expect.any(String) } });
    }
    const record = (await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${created.id}`)).body;
    expect(record.status).toBe('delivered');
    await eventually(async () => (await webhookEventsOf(stack.orm, created.id)).some((e) => e.event === 'delivery.delivered'), 10_000, 'the delivered event');
    expect((await webhookEventsOf(stack.orm, created.id)).filter((e) => e.event === 'delivery.delivered')).toHaveLength(1);
  });

  it('counts a stop once when ten complete requests for it arrive together', async () => {
    const { partner, rider, created } = await onItsWay({ additional_stops: [stopBody(), stopBody({ recipient_name: 'Efua Asante' })] });
    const answers = await tenAtOnce(rider.riderToken, `/rider/deliveries/${created.id}/stops/0/complete`, () => undefined);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400)).toHaveLength(9);
    const record = (await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${created.id}`)).body;
    expect(record.additional_stops.map((s: { status: string }) => s.status)).toEqual(['delivered', 'pending']);
    // The job moves on as it should: the next stop, then the final drop.
    expect((await rider.completeStop(created.id, 1)).status).toBe(200);
    expect((await rider.deliver(created.id)).status).toBe(200);
  });
});
