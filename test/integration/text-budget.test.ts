import { createApiKey, createPartner } from '../../db/accounts';
import { hashPassword } from '../../api/dashboard/passwords';
import { createBookingActivities } from '../../activities/booking';
import { createHandoverCodeCheckActivities } from '../../activities/handover-code-check';
import { readDeliveryTexts, readOutbox } from '../../db/sms-outbox';
import { FINAL_DROP, hashHandoverCode } from '../../domain/handover-code-hash';
import type { SmsSender } from '../../integrations/sms/sender';
import { activityDeps } from '../../workers/activity-deps';
import { startTestStack, type TestStack } from '../helpers/stack';
import { dashboardClient, uniqueEmail } from '../helpers/dashboard';
import { api, eventually } from '../helpers/http';
import { book, bookingBody, commitBookingRow, registerAccount } from '../helpers/bookings';
import { riderApp } from '../helpers/riders';
import { capturingLogger } from '../helpers/captured-logs';

const PASSWORD = 'correct horse battery';
const RECIPIENT = bookingBody().recipient_phone;

let stack: TestStack;
beforeAll(async () => {
  // One text per partner, mode and hour: the second code of the hour is kept back.
  stack = await startTestStack({ env: { SMS_PER_PARTNER_PER_HOUR: '1', RATE_LIMIT_AUTH_PER_MINUTE: '1000' } });
});
afterAll(async () => {
  await stack?.close();
});

/** A confirmed partner logged in to the dashboard's live data, with a live and a test key and a sandbox account in each mode. */
async function partnerWithDashboard() {
  const em = stack.orm.em.fork();
  const email = uniqueEmail('texts');
  const { partnerId } = await createPartner(em, { email, businessName: 'Kumasi Books', passwordHash: await hashPassword(PASSWORD), confirmed: true });
  const liveKey = (await createApiKey(em, { partnerId, label: 'live', mode: 'live' })).apiKey;
  const testKey = (await createApiKey(em, { partnerId, label: 'test', mode: 'test' })).apiKey;
  const live = await registerAccount(stack.baseUrl, liveKey);
  const test = await registerAccount(stack.baseUrl, testKey);
  const client = dashboardClient(stack.baseUrl);
  await client.logIn(email, PASSWORD);
  await client.submit('/dashboard/deliveries', '/dashboard/mode', { mode: 'live', back: '/dashboard/deliveries' });
  return { partnerId, liveKey, liveAccount: live.id, testAccount: test.id, client };
}

/** The code in a hand-over text: its last six characters. */
const codeIn = (body: string) => body.slice(-6);

/** An SMS provider that keeps what it is given, and refuses the first `failures` texts. */
function recordingSms(failures = 0): SmsSender & { sent: { to: string; body: string }[] } {
  let refused = 0;
  const sent: { to: string; body: string }[] = [];
  return {
    sent,
    async send(to, body) {
      if (refused < failures) {
        refused += 1;
        throw new Error('SMS API answered 503');
      }
      sent.push({ to, body });
    },
  };
}

describe('hand-over code texts over the hourly budget', () => {
  it('keeps a code past the budget off the phone, shows it on the dashboard, and the rider delivers with it', async () => {
    const partner = await partnerWithDashboard();
    const texted = await book(stack.baseUrl, partner.liveKey, { verification_method: 'otp' });
    await eventually(async () => (await readDeliveryTexts(stack.orm.em.fork(), texted.id)).length === 1, 15_000, 'the first code texted');
    const held = await book(stack.baseUrl, partner.liveKey, { verification_method: 'otp' });

    const [kept] = await eventually(async () => {
      const texts = await readDeliveryTexts(stack.orm.em.fork(), held.id);
      return texts.length === 1 ? texts : undefined;
    }, 15_000, 'the second code kept');

    expect((await readDeliveryTexts(stack.orm.em.fork(), texted.id))[0]).toMatchObject({ to: RECIPIENT, withheld: null });
    expect(kept).toMatchObject({ to: RECIPIENT, withheld: 'hourly_budget' });
    const code = codeIn(kept!.body);
    // Texted: nobody's phone got it, the outbox's reader of a number shows it not.
    expect((await readOutbox(stack.orm.em.fork(), RECIPIENT)).map((t) => t.body)).not.toContain(kept!.body);
    const page = await partner.client.get(`/dashboard/deliveries/${held.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`it: ${code}</td>`);
    expect(page.text).toContain('<strong>Not texted</strong>: over the hourly budget');
    expect((await partner.client.get(`/dashboard/deliveries/${texted.id}`)).text).not.toContain('Not texted');

    const rider = await riderApp(stack.baseUrl, stack.orm, 'Yaw Budget');
    await rider.take(held.id);
    expect((await rider.pickup(held.id)).status).toBe(200);
    expect((await rider.depart(held.id)).status).toBe(200);
    const delivered = await rider.deliver(held.id, { otp: code });
    expect(delivered.status).toBe(200);
    expect((await api(stack.baseUrl, partner.liveKey).get(`/partner/deliveries/${held.id}`)).body.status).toBe('delivered');
    await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${texted.id}/cancel`);
  });

  it('keeps the code issued, logs the partner without the code or the phone, and counts each mode apart', async () => {
    const partner = await partnerWithDashboard();
    const sms = recordingSms();
    const { logger, lines } = capturingLogger('warn', 'worker');
    const deps = { ...activityDeps({ ...stack.deps, logger }), sms: { live: sms, test: sms } };
    const { textHandoverCodes } = createBookingActivities(deps);
    const { matchHandoverCode } = createHandoverCodeCheckActivities(deps);
    const live = { partnerId: partner.partnerId, mode: 'live' as const, paymentMethodId: partner.liveAccount };
    const first = await commitBookingRow(stack.orm, live, { verificationMethod: 'otp' });
    const second = await commitBookingRow(stack.orm, live, { verificationMethod: 'otp' });

    await textHandoverCodes({ deliveryId: first });
    await textHandoverCodes({ deliveryId: second });

    expect(sms.sent).toHaveLength(1);
    const [kept] = await readDeliveryTexts(stack.orm.em.fork(), second);
    const code = codeIn(kept!.body);
    expect(await matchHandoverCode({ deliveryId: second, position: FINAL_DROP, codeHash: hashHandoverCode(second, FINAL_DROP, code) })).toBe('match');
    const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(warnings).toEqual([
      expect.objectContaining({ level: 'warn', partnerId: partner.partnerId, deliveryId: second, mode: 'live', codesKeptBack: 1 }),
    ]);
    expect(lines.join('\n')).not.toContain(code);
    expect(lines.join('\n')).not.toContain(RECIPIENT.slice(4));

    // Test mode has a budget of its own: its first code of the hour is sent.
    const inTestMode = await commitBookingRow(stack.orm, { ...live, mode: 'test', paymentMethodId: partner.testAccount }, { verificationMethod: 'otp' });
    await textHandoverCodes({ deliveryId: inTestMode });
    expect(sms.sent).toHaveLength(2);
  });

  it('counts a text the provider refused once: its retry is sent, and the next code is kept back', async () => {
    const partner = await partnerWithDashboard();
    const sms = recordingSms(1);
    const { textHandoverCodes } = createBookingActivities({ ...activityDeps(stack.deps), sms: { live: sms, test: sms } });
    const live = { partnerId: partner.partnerId, mode: 'live' as const, paymentMethodId: partner.liveAccount };
    const delivery = await commitBookingRow(stack.orm, live, { verificationMethod: 'otp' });
    const next = await commitBookingRow(stack.orm, live, { verificationMethod: 'otp' });

    await expect(textHandoverCodes({ deliveryId: delivery })).rejects.toThrow('SMS API answered 503');
    await textHandoverCodes({ deliveryId: delivery });
    await textHandoverCodes({ deliveryId: next });

    expect(sms.sent).toEqual([{ to: RECIPIENT, body: expect.stringMatching(/\d{6}$/) }]);
    expect(await readDeliveryTexts(stack.orm.em.fork(), delivery)).toEqual([]);
    expect(await readDeliveryTexts(stack.orm.em.fork(), next)).toEqual([expect.objectContaining({ withheld: 'hourly_budget' })]);
  });
});
