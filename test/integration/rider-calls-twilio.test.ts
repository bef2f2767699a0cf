import { startTestStack, type TestStack } from '../helpers/stack';
import { ghanaMobile } from '../helpers/partners';
import { book, livePartner } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { api } from '../helpers/http';
import { callSessionsOf } from '../helpers/db-deliveries';
import { setRider } from '../helpers/db-riders';
import { TwilioProxyCalling } from '../../integrations/calling/twilio-proxy';
import { proxySessionStore } from '../../db/call-sessions';
import { startTwilioProxyFake, type TwilioProxyFake } from '../fakes/twilio-proxy-fake';

// Masked calling through Twilio Proxy (CALL_MASKING=twilio-proxy), as the rider app meets it: the
// real API and workflow, sessions kept in Postgres, a local Twilio over real HTTP.

let stack: TestStack;
let twilio: TwilioProxyFake;
beforeAll(async () => {
  twilio = await startTwilioProxyFake();
  const calling = new TwilioProxyCalling(
    proxySessionStore(() => stack.orm.em.fork(), 'twilio-proxy'),
    { accountSid: twilio.accountSid, authToken: twilio.authToken, serviceSid: twilio.serviceSid, baseUrl: twilio.baseUrl, timeoutMs: 2000 },
  );
  stack = await startTestStack({ appOverrides: { calling } });
});
afterAll(async () => {
  await stack?.close();
  await twilio?.close();
});

const sessionsOf = (phone: string) => [...twilio.sessions.values()].filter((s) => s.participants.some((p) => p.identifier === phone));

describe('masked calling through Twilio Proxy', () => {
  it("gives the rider a Twilio proxy number for the recipient, the same on every view, and closes the session when the job is delivered", async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Kwame Proxy');
    const phone = ghanaMobile('24');
    const created = await book(stack.baseUrl, partner.liveKey, { recipient_phone: phone });

    const accepted = await rider.take(created.id);
    expect(accepted.call).toEqual({ via: expect.stringMatching(/^\+233302/), expires_at: expect.any(String) });
    const [session] = sessionsOf(phone);
    expect(session).toMatchObject({ mode: 'voice-only', status: 'open' });
    expect(session!.participants.map((p) => [p.identifier, p.proxyIdentifier])).toEqual([[phone, accepted.call.via]]);
    expect(session!.uniqueName).toContain(created.id);

    const asked = twilio.requests.length;
    const current = await rider.client.get('/rider/deliveries/current');
    expect(current.body.call).toEqual(accepted.call);
    expect((await rider.pickup(created.id)).body.call).toEqual(accepted.call);
    expect(twilio.requests.length).toBe(asked);

    expect((await rider.depart(created.id)).status).toBe(200);
    const delivered = await rider.deliver(created.id);
    expect(delivered.status).toBe(200);
    expect(delivered.body.call).toBeNull();
    expect(twilio.sessions.get(session!.sid)!.status).toBe('closed');
    expect(twilio.requests.filter((r) => r.path.endsWith(session!.sid) && r.form.Status === 'closed')).toHaveLength(1);
    const [row] = await callSessionsOf(stack.orm, created.id);
    expect(row).toEqual({ closed: true });

    // No answer to the rider holds the recipient's own number.
    for (const body of [accepted, current.body, delivered.body]) expect(JSON.stringify(body)).not.toContain(phone.slice(4));
  }, 60_000);

  it('bridges the rider and the recipient when the rider has a phone on record: the rider dials their own participant’s number', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Abena Phone');
    const riderPhone = ghanaMobile('20');
    await setRider(stack.orm, rider.riderId, { phone: riderPhone });
    const phone = ghanaMobile('27');
    const created = await book(stack.baseUrl, partner.liveKey, { recipient_phone: phone });

    const accepted = await rider.take(created.id);
    const [session] = sessionsOf(phone);
    const participants = new Map(session!.participants.map((p) => [p.identifier, p.proxyIdentifier]));
    expect([...participants.keys()].sort()).toEqual([phone, riderPhone].sort());
    expect(accepted.call.via).toBe(participants.get(riderPhone));
    // Neither number reaches the rider's answer but the proxy's.
    expect(JSON.stringify(accepted)).not.toContain(phone.slice(4));

    // The partner cancels the accepted job: its session stops bridging at once, not at its expiry.
    expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
    expect(twilio.sessions.get(session!.sid)!.status).toBe('closed');
  }, 60_000);

  it('answers a step while Twilio is down without a number to call, and gives the number once it is back', async () => {
    const partner = await livePartner(stack);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Esi Outage');
    const phone = ghanaMobile('54');
    const created = await book(stack.baseUrl, partner.liveKey, { recipient_phone: phone });
    await rider.waitForOffer(created.id);

    twilio.setOutage(500);
    try {
      const accept = await rider.client.post(`/rider/deliveries/${created.id}/accept`);
      // The accept went through; only the number is missing from its answer.
      expect({ status: accept.status, call: accept.body.call }).toEqual({ status: 200, call: null });
    } finally {
      twilio.setOutage(null);
    }
    // The job is the rider's, and its view now has the number.
    const current = await rider.client.get('/rider/deliveries/current');
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ delivery_id: created.id, status: 'accepted', call: { via: expect.stringMatching(/^\+233302/) } });
    expect(sessionsOf(phone)).toHaveLength(1);

    expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);
  }, 60_000);
});
