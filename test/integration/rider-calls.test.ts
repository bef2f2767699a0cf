import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestStack, type TestStack } from '../helpers/stack';
import { ghanaMobile } from '../helpers/partners';

import { book, livePartner, stopBody } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { LocalCallBridge } from '../../integrations/calling/local-bridge';
import { callSessionStore, readDeliveryCalls } from '../../db/call-sessions';

let stack: TestStack;
let bridge: LocalCallBridge;
beforeAll(async () => {
  stack = await startTestStack();
  // The same Postgres the API's bridge writes to: this stands for a phone dialling a masked number.
  bridge = new LocalCallBridge(callSessionStore(() => stack.orm.em.fork()));
});
afterAll(async () => {
  await stack?.close();
});

/** Every way a number may be written: +233…, 233…, 0…, and the bare nine digits. */
function writings(phone: string): string[] {
  const nine = phone.slice(4);
  return [phone, phone.slice(1), `0${nine}`, nine];
}

type Call = { via: string; expires_at: string } | null;

describe('masked calling', () => {
  it('gives the rider a masked number per recipient, bridged while the job is active, and no rider answer holds a real number', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Kofi Caller');
    const phones = { drop: ghanaMobile('24'), first: ghanaMobile('20'), second: ghanaMobile('54') };
    const created = await book(stack.baseUrl, partner.liveKey, {
      recipient_phone: phones.drop,
      additional_stops: [stopBody({ recipient_phone: phones.first }), stopBody({ recipient_phone: phones.second, recipient_name: 'Efua Owusu' })],
    });
    const answers: { what: string; body: unknown }[] = [];
    const keep = async (what: string, answer: Promise<{ status: number; body: any }>) => {
      const res = await answer;
      answers.push({ what, body: res.body });
      return res;
    };

    await rider.waitForOffer(created.id);
    await keep('offers', rider.client.get('/rider/offers'));
    const accepted = await keep('accept', rider.client.post(`/rider/deliveries/${created.id}/accept`));
    expect(accepted.status).toBe(200);
    const calls: Call[] = [accepted.body.call, ...accepted.body.stops.map((s: { call: Call }) => s.call)];
    for (const call of calls) expect(call).toEqual({ via: expect.stringMatching(/^\+233\d{9}$/), expires_at: expect.any(String) });
    const [drop, first, second] = calls.map((c) => c!.via);
    expect(new Set([drop, first, second]).size).toBe(3);

    // Each masked number reaches its own recipient while the job is active.
    expect(await bridge.placeCall(drop!)).toEqual({ bridged: true, to: phones.drop });
    expect(await bridge.placeCall(first!)).toEqual({ bridged: true, to: phones.first });
    expect(await bridge.placeCall(second!)).toEqual({ bridged: true, to: phones.second });

    const current = await keep('current', rider.client.get('/rider/deliveries/current'));
    expect(current.body.call).toEqual(accepted.body.call);
    expect((await keep('pickup', rider.pickup(created.id))).status).toBe(200);
    expect((await keep('depart', rider.depart(created.id))).status).toBe(200);
    expect((await keep('stop 0', rider.completeStop(created.id, 0))).status).toBe(200);
    expect((await keep('stop 1', rider.completeStop(created.id, 1))).status).toBe(200);
    expect(await bridge.placeCall(drop!)).toEqual({ bridged: true, to: phones.drop });
    const delivered = await keep('deliver', rider.deliver(created.id));
    expect(delivered.status).toBe(200);
    expect(delivered.body.call).toBeNull();
    await keep('current after', rider.client.get('/rider/deliveries/current'));
    await keep('availability', rider.client.put('/rider/availability', { online: false }));

    // Once the job is over, calling through what the rider was given reaches nobody.
    for (const via of [drop!, first!, second!]) expect(await bridge.placeCall(via)).toEqual({ bridged: false, reason: expect.any(String) });

    for (const { what, body } of answers) {
      const text = JSON.stringify(body);
      for (const phone of Object.values(phones)) for (const written of writings(phone)) expect({ what, found: text.includes(written) }).toEqual({ what, found: false });
      expect(text).not.toContain('recipient_phone');
    }
    const log = await readDeliveryCalls(stack.orm.em.fork(), created.id);
    expect(log.map((c) => [c.stop_index, c.bridged_to])).toEqual([
      [-1, phones.drop],
      [0, phones.first],
      [1, phones.second],
      [-1, phones.drop],
      [-1, null],
      [0, null],
      [1, null],
    ]);
  }, 60_000);

  it('stops bridging when the partner cancels the job the rider holds', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Ama Cancelled');
    const phone = ghanaMobile('24');
    const created = await book(stack.baseUrl, partner.liveKey, { recipient_phone: phone });
    const accepted = await rider.take(created.id);
    const via = accepted.call.via as string;
    expect(await bridge.placeCall(via)).toEqual({ bridged: true, to: phone });
    expect((await partner.client.post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
    // The cancel closes the job's sessions; the bridge would refuse the job's status besides.
    expect(await bridge.placeCall(via)).toEqual({ bridged: false, reason: 'the session is closed' });

    // An operator dials and reads the log the same way.
    const ops = async (...args: string[]) =>
      JSON.parse(
        (await promisify(execFile)('npm', ['run', '--silent', 'ops', '--', ...args], { env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL } }))
          .stdout,
      );
    expect(await ops('call:place', '--via', via)).toEqual({ bridged: false, reason: 'the session is closed' });
    const { calls } = await ops('calls', '--delivery', created.id);
    expect(calls.map((c: { bridged_to: string | null; refused: string | null }) => [c.bridged_to, c.refused])).toEqual([
      [phone, null],
      [null, 'the session is closed'],
      [null, 'the session is closed'],
    ]);
  }, 60_000);

  it('refuses a call to a number no session holds', async () => {
    expect(await bridge.placeCall('+233300000000')).toEqual({ bridged: false, reason: 'no session on this number' });
  });
});
