import { PartnerApiError } from '../../clients/typescript/src';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { SANDBOX, book, bookingBody, registerAccount } from '../helpers/bookings';
import { deliveriesOf } from '../helpers/db-deliveries';
import { settleDebitsEarlier } from '../helpers/db-payments';
import { idempotencyKeysOf } from '../helpers/db-requests';
import { ops, opsRefusal } from '../helpers/operator-commands';

/**
 * A debit on an ordinary sandbox number confirms after this long: long enough for a test to see
 * the hold while one is still pending, then see it lift when that one is paid.
 */
const CONFIRM_MS = 8_000;

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env: { SANDBOX_CONFIRM_MS: String(CONFIRM_MS) } });
});
afterAll(async () => {
  await stack?.close();
});

async function paymentStatusBecomes(key: string, id: string, wanted: string, timeoutMs = 15_000): Promise<void> {
  await eventually(async () => (await api(stack.baseUrl, key).get(`/partner/deliveries/${id}`)).body.payment_status === wanted, timeoutMs, `payment_status ${wanted}`);
}

/** Books `count` deliveries with `key` and waits until each one's debit has failed. */
async function failedBookings(key: string, count: number, overrides: Record<string, unknown> = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await book(stack.baseUrl, key, overrides)).id);
  for (const id of ids) await paymentStatusBecomes(key, id, 'failed');
  return ids;
}

/** A booking attempt over plain HTTP, so a refusal's status, headers and envelope can be read. */
function tryBooking(key: string, headers: Record<string, string> = {}) {
  return api(stack.baseUrl, key).post('/partner/deliveries', bookingBody(), headers);
}

const HELD = {
  code: 'payment_required',
  message: expect.stringMatching(/booking is paused/),
  details: { unpaid_deliveries: 3, limit: 3, what_to_do: expect.stringMatching(/Top up the Mobile Money wallet/) },
};

describe('bookings while a partner’s debits fail', () => {
  it('refuses the fourth booking once three debits failed, with 402 payment_required, and saves nothing', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey, SANDBOX.declines);
    const failed = await failedBookings(partner.testKey, 3);
    const saved = await deliveriesOf(stack.orm, partner.partnerId);
    expect(saved.map((d) => d.id).sort()).toEqual([...failed].sort());

    const refused = await tryBooking(partner.testKey, { 'Idempotency-Key': 'fourth-booking' });

    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ error: { ...HELD, details: { ...HELD.details, what_to_do: expect.stringContaining('ending in 2222') } } });
    // Nothing is saved: no delivery (so no debit and no dispatch), and the key is let go of.
    expect(await deliveriesOf(stack.orm, partner.partnerId)).toEqual(saved);
    expect((await idempotencyKeysOf(stack.orm, partner.partnerId)).map((k) => k.key)).not.toContain('fourth-booking');
    // The partner client reads it as a typed error.
    const thrown = await book(stack.baseUrl, partner.testKey).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(PartnerApiError);
    expect(thrown).toMatchObject({ status: 402, code: 'payment_required', details: { unpaid_deliveries: 3, limit: 3 } });
  });

  it('still replays an Idempotency-Key answered before the hold', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey, SANDBOX.declines);
    const first = await tryBooking(partner.testKey, { 'Idempotency-Key': 'before-the-hold' });
    expect(first.status).toBe(201);
    await paymentStatusBecomes(partner.testKey, first.body.id, 'failed');
    await failedBookings(partner.testKey, 2);
    expect((await tryBooking(partner.testKey)).status).toBe(402);

    const repeat = await tryBooking(partner.testKey, { 'Idempotency-Key': 'before-the-hold' });

    expect(repeat.status).toBe(201);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body.id).toBe(first.body.id);
  });

  it('counts each mode apart: a test-mode hold leaves live booking alone', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey, SANDBOX.declines);
    await registerAccount(stack.baseUrl, partner.liveKey);
    await failedBookings(partner.testKey, 3);
    expect((await tryBooking(partner.testKey)).status).toBe(402);

    const live = await tryBooking(partner.liveKey);

    expect(live.status).toBe(201);
    await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${live.body.id}/cancel`);
  });

  it('books again once an operator lifts the hold of the mode named, and counts the failures after it', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey, SANDBOX.declines);
    await failedBookings(partner.testKey, 3);

    // Live is the default mode: lifting it leaves the test-mode hold in place.
    const live = await ops('partner:clear-unpaid', '--partner', partner.partnerId);
    expect(live).toEqual({ partner_id: partner.partnerId, mode: 'live', unpaid_deliveries_before: 0, unpaid_cleared_at: expect.any(String) });
    expect((await tryBooking(partner.testKey)).status).toBe(402);

    const lifted = await ops('partner:clear-unpaid', '--partner', partner.partnerId, '--test');
    expect(lifted).toEqual({ partner_id: partner.partnerId, mode: 'test', unpaid_deliveries_before: 3, unpaid_cleared_at: expect.any(String) });
    expect(new Date(lifted.unpaid_cleared_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect((await tryBooking(partner.testKey)).status).toBe(201);

    // The failures since the lift count afresh.
    await eventually(async () => (await deliveriesOf(stack.orm, partner.partnerId)).every((d) => d.payment_status === 'failed'), 15_000, 'the debit to fail');
    await failedBookings(partner.testKey, 2);
    expect((await tryBooking(partner.testKey)).body).toEqual({ error: expect.objectContaining({ code: 'payment_required' }) });
  });

  it('refuses to lift the hold of a partner that does not exist, in one line', async () => {
    for (const partner of ['00000000-0000-4000-8000-000000000000', 'not-a-partner']) {
      expect(await opsRefusal('partner:clear-unpaid', '--partner', partner)).toEqual({ code: 2, output: { error: 'Unknown partner' } });
    }
  });

  it('lifts the hold by itself when one of the partner’s debits succeeds', async () => {
    const partner = await makePartner(stack.orm);
    const good = await registerAccount(stack.baseUrl, partner.testKey);
    const empty = { provider: 'network_a', phone: SANDBOX.declines, account_name: 'Test Shop Ltd', is_default: true };
    expect((await api(stack.baseUrl, partner.testKey).post('/partner/payment-methods', empty)).status).toBe(201);
    const started = Date.now();
    // Paid only after CONFIRM_MS, by then the three below have failed.
    const paying = await book(stack.baseUrl, partner.testKey, { payment_method_id: good.id });
    await failedBookings(partner.testKey, 3);
    const held = await tryBooking(partner.testKey);
    expect(Date.now() - started).toBeLessThan(CONFIRM_MS);
    expect(held.status).toBe(402);

    await paymentStatusBecomes(partner.testKey, paying.id, 'paid', CONFIRM_MS + 10_000);

    expect((await tryBooking(partner.testKey)).status).toBe(201);
  });

  it('forgets failures more than a day old', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey, SANDBOX.declines);
    const failed = await failedBookings(partner.testKey, 3);
    expect((await tryBooking(partner.testKey)).status).toBe(402);

    await settleDebitsEarlier(stack.orm, failed.slice(0, 1), { hours: 24, minutes: 1 });

    expect((await tryBooking(partner.testKey)).status).toBe(201);
  });
});
