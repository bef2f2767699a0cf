import { randomBytes } from 'node:crypto';
import { startTestStack, type TestStack } from '../helpers/stack';
import { ghanaMobile } from '../helpers/partners';
import { book, livePartner, stopBody } from '../helpers/bookings';
import { riderApp, riderWithPhone } from '../helpers/riders';
import { api } from '../helpers/http';
import { capturingLogger } from '../helpers/captured-logs';
import { readDeliveryCalls } from '../../db/call-sessions';
import { REFUSAL_SPOKEN } from '../../api/providers/voice-callback-routes';
import { africasTalkingVoiceFake, type AfricasTalkingVoiceFake } from '../fakes/africastalking-voice-fake';

// Masked calls through numbers rented from Africa's Talking Voice (CALL_MASKING=number-pool,
// CALL_PROVIDER=africastalking), as a rider meets them: the real API and workflow, sessions in
// Postgres, and Africa's Talking played by a fake that asks our callback about each call from
// one of its addresses, through the proxy in front of the API (TRUST_PROXY).

const POOL = ['+233302000221', '+233302000222', '+233302000223', '+233302000224'];
const SECRET = randomBytes(24).toString('hex');
/** Africa's Talking's addresses as the operator lists them; documentation ranges, never a real host. */
const PROVIDER_SUBNET = '192.0.2.0/24';
const FROM_PROVIDER = '192.0.2.17';

let stack: TestStack;
let africasTalking: AfricasTalkingVoiceFake;
const { logger, lines } = capturingLogger('http', 'api');
beforeAll(async () => {
  stack = await startTestStack({
    env: {
      CALL_MASKING: 'number-pool',
      CALL_PROVIDER: 'africastalking',
      CALL_POOL_NUMBERS: POOL.join(','),
      AFRICASTALKING_CALLBACK_SECRET: SECRET,
      AFRICASTALKING_CALLBACK_IPS: `${PROVIDER_SUBNET},2001:db8::/32`,
      TRUST_PROXY: 'loopback',
    },
    appOverrides: { logger },
  });
  africasTalking = africasTalkingVoiceFake({ callbackUrl: `${stack.baseUrl}/api/v1/calls/africastalking/${SECRET}/voice`, sourceAddress: FROM_PROVIDER });
});
afterAll(async () => {
  await stack?.close();
});

const refused = { refused: REFUSAL_SPOKEN };

describe("masked calls through an Africa's Talking number pool", () => {
  it('puts the rider’s own phone through to each recipient on that recipient’s pool number while the job is active, and no further', async () => {
    const partner = await livePartner(stack);
    const rider = await riderWithPhone(stack, 'Kofi Pool');
    const phones = { drop: ghanaMobile('24'), first: ghanaMobile('20') };
    const created = await book(stack.baseUrl, partner.liveKey, { recipient_phone: phones.drop, additional_stops: [stopBody({ recipient_phone: phones.first })] });

    const accepted = await rider.take(created.id);
    const [drop, first] = [accepted.call.via as string, accepted.stops[0].call.via as string];
    expect(POOL).toContain(drop);
    expect(POOL).toContain(first);
    expect(drop).not.toBe(first);

    // Put through, the recipient shown the pool number; the call's last request is answered and is no call of its own.
    expect(await africasTalking.call(rider.phone, drop)).toEqual({ outcome: { dialled: phones.drop, callerId: drop }, endStatus: 200 });
    expect(await africasTalking.call(rider.phone, first)).toEqual({ outcome: { dialled: phones.first, callerId: first }, endStatus: 200 });
    expect(await africasTalking.call(ghanaMobile('27'), first)).toEqual({ outcome: refused, endStatus: 200 });
    const unused = POOL.find((number) => number !== drop && number !== first) as string;
    expect(await africasTalking.call(rider.phone, unused)).toEqual({ outcome: refused, endStatus: 200 });

    expect((await rider.pickup(created.id)).status).toBe(200);
    expect((await rider.depart(created.id)).status).toBe(200);
    expect((await rider.completeStop(created.id, 0)).status).toBe(200);
    expect((await rider.deliver(created.id)).status).toBe(200);
    expect(await africasTalking.call(rider.phone, drop)).toEqual({ outcome: refused, endStatus: 200 });

    const log = await readDeliveryCalls(stack.orm.em.fork(), created.id);
    expect(log.map((call) => [call.stop_index, call.bridged_to, call.refused])).toEqual([
      [-1, phones.drop, null],
      [0, phones.first, null],
      [-1, null, 'the session is closed'],
    ]);
  }, 60_000);

  it('refuses a call from the rider once the partner cancels the job', async () => {
    const partner = await livePartner(stack);
    const rider = await riderWithPhone(stack, 'Akua Cancelled');
    const phone = ghanaMobile('54');
    const created = await book(stack.baseUrl, partner.liveKey, { recipient_phone: phone });
    const via = (await rider.take(created.id)).call.via as string;
    expect((await africasTalking.call(rider.phone, via)).outcome).toEqual({ dialled: phone, callerId: via });
    expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
    expect((await africasTalking.call(rider.phone, via)).outcome).toEqual(refused);
  }, 60_000);

  it('answers 401 to a wrong secret in the path or an address not in the list, dials nobody, and never logs the secret', async () => {
    const partner = await livePartner(stack);
    const rider = await riderWithPhone(stack, 'Esi Forged');
    const phone = ghanaMobile('24');
    const created = await book(stack.baseUrl, partner.liveKey, { recipient_phone: phone });
    const via = (await rider.take(created.id)).call.via as string;

    const wrongSecret = africasTalkingVoiceFake({ callbackUrl: `${stack.baseUrl}/api/v1/calls/africastalking/${randomBytes(24).toString('hex')}/voice`, sourceAddress: FROM_PROVIDER });
    expect(await wrongSecret.call(rider.phone, via)).toEqual({ outcome: { httpStatus: 401 }, endStatus: null });
    // The right secret from outside Africa's Talking's addresses: a leaked URL alone is not enough.
    expect(await africasTalking.call(rider.phone, via, { sourceAddress: '198.51.100.7' })).toEqual({ outcome: { httpStatus: 401 }, endStatus: null });
    const direct = await fetch(`${stack.baseUrl}/api/v1/calls/africastalking/${SECRET}/voice`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ isActive: '1', callerNumber: rider.phone, destinationNumber: via }).toString(),
    });
    // Straight from the loopback proxy, with no forwarded address: the proxy is not Africa's Talking.
    expect(direct.status).toBe(401);
    expect(((await direct.json()) as { error: unknown }).error).toEqual({ code: 'unauthorized', message: 'The callback is not from the voice provider', details: {} });
    expect(await readDeliveryCalls(stack.orm.em.fork(), created.id)).toEqual([]);

    // From an address of the list, over IPv6 too.
    expect((await africasTalking.call(rider.phone, via, { sourceAddress: '2001:db8::5' })).outcome).toEqual({ dialled: phone, callerId: via });
    expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);

    const callbackLines = lines.filter((line) => line.includes('/calls/africastalking/'));
    expect(callbackLines.length).toBeGreaterThan(0);
    expect(callbackLines.every((line) => line.includes('/api/v1/calls/africastalking/{secret}/voice'))).toBe(true);
    expect(lines.filter((line) => line.includes(SECRET))).toEqual([]);
  }, 60_000);

  it('gives a rider without a phone on record no number to call, and the Twilio callback is no route here', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Yaw Phoneless');
    const created = await book(stack.baseUrl, partner.liveKey, { recipient_phone: ghanaMobile('24') });
    expect((await rider.take(created.id)).call).toBeNull();
    expect((await fetch(`${stack.baseUrl}/api/v1/calls/twilio/voice`, { method: 'POST', body: 'From=%2B233241234567' })).status).toBe(404);
    expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
  }, 60_000);
});
