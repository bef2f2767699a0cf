import { randomBytes } from 'node:crypto';
import { startTestStack, type TestStack } from '../helpers/stack';
import { ghanaMobile } from '../helpers/partners';
import { book, livePartner, stopBody } from '../helpers/bookings';
import { riderApp, riderWithPhone } from '../helpers/riders';
import { api } from '../helpers/http';
import { readDeliveryCalls } from '../../db/call-sessions';
import { REFUSAL_SPOKEN } from '../../api/providers/voice-callback-routes';
import { twilioVoiceFake, type TwilioVoiceFake } from '../fakes/twilio-voice-fake';

// Masked calls through numbers rented from Twilio Programmable Voice (CALL_MASKING=number-pool,
// CALL_PROVIDER=twilio), as a rider meets them: the real API and workflow, sessions in Postgres,
// and Twilio played by a fake that asks our voice callback about each call, signed as Twilio signs.

const POOL = ['+233302000211', '+233302000212', '+233302000213', '+233302000214'];
/** The public address Twilio is given; the fake posts to the stack itself, as a proxy in front would. */
const SITE_URL = 'https://deliveries.example.com.gh';
const AUTH_TOKEN = randomBytes(16).toString('hex');

let stack: TestStack;
let twilio: TwilioVoiceFake;
beforeAll(async () => {
  stack = await startTestStack({
    env: { CALL_MASKING: 'number-pool', CALL_PROVIDER: 'twilio', CALL_POOL_NUMBERS: POOL.join(','), TWILIO_AUTH_TOKEN: AUTH_TOKEN, SITE_URL },
  });
  twilio = twilioVoiceFake({ postTo: `${stack.baseUrl}/api/v1/calls/twilio/voice`, voiceUrl: `${SITE_URL}/api/v1/calls/twilio/voice`, authToken: AUTH_TOKEN });
});
afterAll(async () => {
  await stack?.close();
});

const refused = { refused: REFUSAL_SPOKEN };

describe('masked calls through a Twilio number pool', () => {
  it('puts the rider’s own phone through to each recipient on that recipient’s pool number while the job is active, and no further', async () => {
    const partner = await livePartner(stack);
    const rider = await riderWithPhone(stack, 'Kojo Pool');
    const phones = { drop: ghanaMobile('24'), first: ghanaMobile('20'), second: ghanaMobile('54') };
    const created = await book(stack.baseUrl, partner.liveKey, {
      recipient_phone: phones.drop,
      additional_stops: [stopBody({ recipient_phone: phones.first }), stopBody({ recipient_phone: phones.second })],
    });

    const accepted = await rider.take(created.id);
    const vias: string[] = [accepted.call.via, ...accepted.stops.map((stop: { call: { via: string } }) => stop.call.via)];
    // Each recipient its own pool number: the dialled number alone tells whom the rider calls.
    expect(vias.every((via) => POOL.includes(via))).toBe(true);
    expect(new Set(vias).size).toBe(3);
    const [drop, first, second] = vias as [string, string, string];

    expect(await twilio.call(rider.phone, drop)).toEqual({ dialled: phones.drop, callerId: drop });
    expect(await twilio.call(rider.phone, first)).toEqual({ dialled: phones.first, callerId: first });
    expect(await twilio.call(rider.phone, second)).toEqual({ dialled: phones.second, callerId: second });
    // Another phone on the same number reaches nobody; nor does the rider on a number with no session of theirs.
    expect(await twilio.call(ghanaMobile('27'), drop)).toEqual(refused);
    const unused = POOL.find((number) => !vias.includes(number)) as string;
    expect(await twilio.call(rider.phone, unused)).toEqual(refused);

    // The same numbers on every view of the job.
    expect((await rider.client.get('/rider/deliveries/current')).body.call.via).toBe(drop);
    expect((await rider.pickup(created.id)).status).toBe(200);
    expect((await rider.depart(created.id)).status).toBe(200);
    expect((await rider.completeStop(created.id, 0)).status).toBe(200);
    expect((await rider.completeStop(created.id, 1)).status).toBe(200);
    const delivered = await rider.deliver(created.id);
    expect(delivered.status).toBe(200);
    expect(delivered.body.call).toBeNull();

    // The job is over: the same calls are refused, spoken.
    for (const via of vias) expect(await twilio.call(rider.phone, via)).toEqual(refused);

    const log = await readDeliveryCalls(stack.orm.em.fork(), created.id);
    expect(log.map((call) => [call.stop_index, call.bridged_to, call.refused])).toEqual([
      [-1, phones.drop, null],
      [0, phones.first, null],
      [1, phones.second, null],
      [-1, null, 'the session is closed'],
      [0, null, 'the session is closed'],
      [1, null, 'the session is closed'],
    ]);
    for (const body of [accepted, delivered.body]) for (const phone of [...Object.values(phones), rider.phone]) expect(JSON.stringify(body)).not.toContain(phone.slice(4));
  }, 60_000);

  it('refuses a call once the partner cancels the job the rider holds', async () => {
    const partner = await livePartner(stack);
    const rider = await riderWithPhone(stack, 'Ama Cancelled');
    const phone = ghanaMobile('24');
    const created = await book(stack.baseUrl, partner.liveKey, { recipient_phone: phone });
    const via = (await rider.take(created.id)).call.via as string;
    expect(await twilio.call(rider.phone, via)).toEqual({ dialled: phone, callerId: via });
    expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
    expect(await twilio.call(rider.phone, via)).toEqual(refused);
  }, 60_000);

  it('answers a callback not signed with the account’s auth token 401, and dials nobody', async () => {
    const partner = await livePartner(stack);
    const rider = await riderWithPhone(stack, 'Esi Forged');
    const phone = ghanaMobile('24');
    const created = await book(stack.baseUrl, partner.liveKey, { recipient_phone: phone });
    const via = (await rider.take(created.id)).call.via as string;

    expect(await twilio.call(rider.phone, via, { signWith: randomBytes(16).toString('hex') })).toEqual({ httpStatus: 401 });
    // Signed for another URL (a callback replayed to a path it was not sent to) is refused too.
    const elsewhere = twilioVoiceFake({ postTo: `${stack.baseUrl}/api/v1/calls/twilio/voice`, voiceUrl: `${SITE_URL}/api/v1/other`, authToken: AUTH_TOKEN });
    expect(await elsewhere.call(rider.phone, via)).toEqual({ httpStatus: 401 });
    const unsigned = await fetch(`${stack.baseUrl}/api/v1/calls/twilio/voice`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ From: rider.phone, To: via }).toString(),
    });
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect(await readDeliveryCalls(stack.orm.em.fork(), created.id)).toEqual([]);

    expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
  }, 60_000);

  it('gives a rider without a phone on record no number to call, and the Africa’s Talking callback is no route here', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Yaw Phoneless');
    const created = await book(stack.baseUrl, partner.liveKey, { recipient_phone: ghanaMobile('24') });
    const accepted = await rider.take(created.id);
    expect(accepted.call).toBeNull();
    expect((await rider.client.get('/rider/deliveries/current')).body.call).toBeNull();

    const other = await fetch(`${stack.baseUrl}/api/v1/calls/africastalking/${'a'.repeat(40)}/voice`, { method: 'POST', body: 'isActive=1' });
    expect(other.status).toBe(404);
    expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
  }, 60_000);
});
