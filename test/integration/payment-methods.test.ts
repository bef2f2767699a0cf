import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { SANDBOX, book, bookingBody, registerAccount } from '../helpers/bookings';
import { deliveryIdsOf } from '../helpers/db-deliveries';
import { debitsOf, ledgerOf, paymentMethodsOf } from '../helpers/db-payments';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const ACCOUNT_FIELDS = ['account_name', 'created_at', 'id', 'is_default', 'phone', 'provider'];

interface Account {
  id: string;
  provider: string;
  phone: string;
  account_name: string;
  is_default: boolean;
  created_at: string;
}

function accounts(key: string) {
  return api(stack.baseUrl, key);
}

async function register(key: string, body: Record<string, unknown>) {
  return accounts(key).post('/partner/payment-methods', { provider: 'network_a', account_name: 'Test Shop Ltd', ...body });
}

async function list(key: string): Promise<Account[]> {
  const res = await accounts(key).get<Account[]>('/partner/payment-methods');
  expect(res.status).toBe(200);
  return res.body;
}

describe('registering a Mobile Money account', () => {
  it('saves a number the network knows, with the phone exactly as sent and no provider-internal fields', async () => {
    const partner = await makePartner(stack.orm);
    const res = await register(partner.testKey, { phone: SANDBOX.ok, account_name: 'Kofi Ventures' });

    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(ACCOUNT_FIELDS);
    expect(res.body).toMatchObject({ provider: 'network_a', phone: SANDBOX.ok, account_name: 'Kofi Ventures', is_default: true });
    expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
    const listed = await list(partner.testKey);
    expect(listed).toEqual([res.body]);
    expect(Object.keys(listed[0] as Account).sort()).toEqual(ACCOUNT_FIELDS);
  });

  it('stores the holder name the network has on file instead of the name sent', async () => {
    const partner = await makePartner(stack.orm);
    const res = await register(partner.testKey, { phone: SANDBOX.named, account_name: 'Someone Else' });

    expect(res.status).toBe(201);
    expect(res.body.account_name).toBe('Ama Serwaa');
    expect((await list(partner.testKey))[0]?.account_name).toBe('Ama Serwaa');
  });

  it('refuses a number that does not exist on any network and saves nothing', async () => {
    const partner = await makePartner(stack.orm);
    const res = await register(partner.testKey, { phone: SANDBOX.missing });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message: expect.any(String), details: expect.any(Object) } });
    expect(await paymentMethodsOf(stack.orm, partner.partnerId)).toEqual([]);
    expect(await list(partner.testKey)).toEqual([]);
  });

  it('refuses a number that belongs to another network than the provider named, and saves nothing', async () => {
    const partner = await makePartner(stack.orm);
    const wrong = await register(partner.testKey, { provider: 'network_a', phone: SANDBOX.networkB });

    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('bad_request');
    expect(await paymentMethodsOf(stack.orm, partner.partnerId)).toEqual([]);

    const right = await register(partner.testKey, { provider: 'network_b', phone: SANDBOX.networkB });
    expect(right.status).toBe(201);
    expect(right.body.provider).toBe('network_b');
  });

  it('recognises each network by its number ranges', async () => {
    const partner = await makePartner(stack.orm);
    const cases = [
      ['network_a', '+233251230001'],
      ['network_a', '+233551230001'],
      ['network_b', '+233501230001'],
      ['network_c', '+233271230001'],
      ['network_c', '+233561230001'],
    ] as const;
    for (const [provider, phone] of cases) {
      const res = await register(partner.testKey, { provider, phone });
      expect({ provider, phone, status: res.status }).toEqual({ provider, phone, status: 201 });
    }
    const crossed = await register(partner.testKey, { provider: 'network_b', phone: '+233271230002' });
    expect(crossed.status).toBe(400);
  });

  it('refuses a number that is not a Ghana mobile number', async () => {
    const partner = await makePartner(stack.orm);
    for (const phone of ['0241230001', '+23324123000', '+2332412300011', '+447700900123']) {
      const res = await register(partner.testKey, { phone });
      expect({ phone, status: res.status, code: res.body.error?.code }).toEqual({ phone, status: 400, code: 'bad_request' });
    }
    expect(await paymentMethodsOf(stack.orm, partner.partnerId)).toEqual([]);
  });

  it('makes the first account the default even when is_default is false', async () => {
    const partner = await makePartner(stack.orm);
    const first = await register(partner.testKey, { phone: SANDBOX.ok, is_default: false });

    expect(first.status).toBe(201);
    expect(first.body.is_default).toBe(true);
  });

  it('keeps the default where it is when a later account does not ask for it', async () => {
    const partner = await makePartner(stack.orm);
    const first = await register(partner.testKey, { phone: SANDBOX.ok });
    const second = await register(partner.testKey, { phone: SANDBOX.named });
    const third = await register(partner.testKey, { phone: SANDBOX.declines, is_default: false });

    expect([first.body.is_default, second.body.is_default, third.body.is_default]).toEqual([true, false, false]);
    expect((await list(partner.testKey)).map((a) => a.id)).toEqual([first.body.id, second.body.id, third.body.id]);
  });

  it('hands the default to a later account registered with is_default true and lists it first', async () => {
    const partner = await makePartner(stack.orm);
    const first = await register(partner.testKey, { phone: SANDBOX.ok });
    const second = await register(partner.testKey, { phone: SANDBOX.declines });
    const third = await register(partner.testKey, { phone: SANDBOX.named, is_default: true });

    expect(third.body.is_default).toBe(true);
    const listed = await list(partner.testKey);
    expect(listed.map((a) => [a.id, a.is_default])).toEqual([
      [third.body.id, true],
      [first.body.id, false],
      [second.body.id, false],
    ]);
  });

  it('keeps exactly one default when two first accounts are registered at the same moment', async () => {
    const partner = await makePartner(stack.orm);
    const results = await Promise.all([
      register(partner.testKey, { phone: SANDBOX.ok }),
      register(partner.testKey, { phone: SANDBOX.named }),
      register(partner.testKey, { phone: SANDBOX.declines }),
    ]);

    expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
    const listed = await list(partner.testKey);
    expect(listed.filter((a) => a.is_default)).toHaveLength(1);
    expect(listed[0]?.is_default).toBe(true);
  });
});

describe('removing a Mobile Money account', () => {
  it('answers 200 with the id and deleted true, and the oldest remaining account becomes the default', async () => {
    const partner = await makePartner(stack.orm);
    const first = await register(partner.testKey, { phone: SANDBOX.ok });
    const second = await register(partner.testKey, { phone: SANDBOX.named });
    const third = await register(partner.testKey, { phone: SANDBOX.declines });

    const removed = await accounts(partner.testKey).delete(`/partner/payment-methods/${first.body.id}`);

    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: first.body.id, deleted: true });
    expect((await list(partner.testKey)).map((a) => [a.id, a.is_default])).toEqual([
      [second.body.id, true],
      [third.body.id, false],
    ]);
  });

  it('leaves the default alone when another account is removed', async () => {
    const partner = await makePartner(stack.orm);
    await register(partner.testKey, { phone: SANDBOX.ok });
    const second = await register(partner.testKey, { phone: SANDBOX.named });
    const third = await register(partner.testKey, { phone: SANDBOX.declines, is_default: true });

    expect((await accounts(partner.testKey).delete(`/partner/payment-methods/${second.body.id}`)).status).toBe(200);

    const listed = await list(partner.testKey);
    expect(listed[0]).toMatchObject({ id: third.body.id, is_default: true });
    expect(listed.filter((a) => a.is_default)).toHaveLength(1);
    expect(listed.map((a) => a.id)).not.toContain(second.body.id);
  });

  it('answers 404 for an unknown id, an id removed before and another partner’s account', async () => {
    const owner = await makePartner(stack.orm);
    const stranger = await makePartner(stack.orm);
    const kept = await register(owner.testKey, { phone: SANDBOX.ok });
    const gone = await register(owner.testKey, { phone: SANDBOX.named });
    expect((await accounts(owner.testKey).delete(`/partner/payment-methods/${gone.body.id}`)).status).toBe(200);

    for (const id of [randomUUID(), gone.body.id, 'not-a-uuid']) {
      const res = await accounts(owner.testKey).delete(`/partner/payment-methods/${id}`);
      expect({ id, status: res.status, code: res.body.error?.code }).toEqual({ id, status: 404, code: 'not_found' });
    }
    const foreign = await accounts(stranger.testKey).delete(`/partner/payment-methods/${kept.body.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await list(owner.testKey)).map((a) => a.id)).toEqual([kept.body.id]);
  });

  it('takes a new account as default after the last one was removed', async () => {
    const partner = await makePartner(stack.orm);
    const only = await register(partner.testKey, { phone: SANDBOX.ok });
    await accounts(partner.testKey).delete(`/partner/payment-methods/${only.body.id}`);
    expect(await list(partner.testKey)).toEqual([]);

    const again = await register(partner.testKey, { phone: SANDBOX.ok, is_default: false });
    expect(again.body.is_default).toBe(true);
    expect(again.body.id).not.toBe(only.body.id);
  });
});

describe('live and test accounts', () => {
  it('keeps each mode’s accounts apart, like two separate accounts', async () => {
    const partner = await makePartner(stack.orm);
    const live = await register(partner.liveKey, { phone: SANDBOX.ok });
    expect(live.body.is_default).toBe(true);

    expect(await list(partner.testKey)).toEqual([]);
    const hidden = await accounts(partner.testKey).delete(`/partner/payment-methods/${live.body.id}`);
    expect(hidden.status).toBe(404);
    expect((await list(partner.liveKey)).map((a) => a.id)).toEqual([live.body.id]);

    // The first test account is the test-mode default, whatever the live side holds.
    const test = await register(partner.testKey, { phone: SANDBOX.named, is_default: false });
    expect(test.body.is_default).toBe(true);
    expect((await list(partner.liveKey)).map((a) => [a.id, a.is_default])).toEqual([[live.body.id, true]]);

    const crossBooking = await accounts(partner.testKey).post('/partner/deliveries', bookingBody({ payment_method_id: live.body.id }));
    expect(crossBooking.status).toBe(400);
    expect(crossBooking.body.error.code).toBe('bad_request');
  });
});

describe('booking and the registered accounts', () => {
  it('refuses a booking with 400 bad_request while no account is registered', async () => {
    const partner = await makePartner(stack.orm);
    for (const key of [partner.testKey, partner.liveKey]) {
      const res = await accounts(key).post('/partner/deliveries', bookingBody());
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 'bad_request', message: expect.any(String), details: expect.any(Object) } });
    }
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toEqual([]);
  });

  it('refuses a booking once every account has been removed', async () => {
    const partner = await makePartner(stack.orm);
    const account = await registerAccount(stack.baseUrl, partner.testKey);
    await accounts(partner.testKey).delete(`/partner/payment-methods/${account.id}`);

    const res = await accounts(partner.testKey).post('/partner/deliveries', bookingBody());
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('bad_request');
  });

  it('refuses a payment_method_id that is unknown, removed or another partner’s with 400 bad_request', async () => {
    const partner = await makePartner(stack.orm);
    const stranger = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const removed = await registerAccount(stack.baseUrl, partner.testKey, SANDBOX.named);
    await accounts(partner.testKey).delete(`/partner/payment-methods/${removed.id}`);
    const foreign = await registerAccount(stack.baseUrl, stranger.testKey);

    for (const id of [randomUUID(), removed.id, foreign.id]) {
      const res = await accounts(partner.testKey).post('/partner/deliveries', bookingBody({ payment_method_id: id }));
      expect({ id, status: res.status, code: res.body.error?.code }).toEqual({ id, status: 400, code: 'bad_request' });
    }
    // A UUID written as a URN is still not an id of ours: refused by its form, before any lookup.
    const urn = await accounts(partner.testKey).post('/partner/deliveries', bookingBody({ payment_method_id: `urn:uuid:${randomUUID()}` }));
    expect({ status: urn.status, code: urn.body.error?.code, details: urn.body.error?.details }).toEqual({
      status: 400,
      code: 'bad_request',
      details: { payment_method_id: 'must be a UUID' },
    });
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toEqual([]);
  });

  it('debits the account named by payment_method_id, and the default when none is named', async () => {
    const partner = await makePartner(stack.orm);
    const byDefault = await registerAccount(stack.baseUrl, partner.testKey);
    const named = await registerAccount(stack.baseUrl, partner.testKey, SANDBOX.named);

    const first = await book(stack.baseUrl, partner.testKey);
    const second = await book(stack.baseUrl, partner.testKey, { payment_method_id: named.id });

    const debits = await eventually(async () => {
      const rows = await debitsOf(stack.orm, [first.id, second.id]);
      return rows.length === 2 ? rows : undefined;
    }, 10_000, 'both debits');
    const accountOf = Object.fromEntries(debits.map((d) => [d.delivery_id, d.payment_method_id]));
    expect(accountOf).toEqual({ [first.id]: byDefault.id, [second.id]: named.id });
  });

  it('debits the new default, not a removed default, while other accounts remain', async () => {
    const partner = await makePartner(stack.orm);
    const first = await registerAccount(stack.baseUrl, partner.testKey);
    const second = await registerAccount(stack.baseUrl, partner.testKey, SANDBOX.named);
    expect((await accounts(partner.testKey).delete(`/partner/payment-methods/${first.id}`)).status).toBe(200);

    const booked = await book(stack.baseUrl, partner.testKey);

    const [debit] = await eventually(async () => {
      const rows = await debitsOf(stack.orm, booked.id);
      return rows.length > 0 ? rows : undefined;
    }, 10_000, 'the debit');
    expect(debit?.payment_method_id).toBe(second.id);
    // The debit is recorded before the network takes it: the sandbox's ledger line may come a moment later.
    const [ledger] = await eventually(async () => {
      const rows = await ledgerOf(stack.orm, booked.id);
      return rows.length > 0 ? rows : undefined;
    }, 10_000, 'the sandbox ledger line');
    expect(ledger?.phone).toBe(SANDBOX.named);
  });

  it('still debits a booking made before its account was removed', async () => {
    const partner = await makePartner(stack.orm);
    const account = await registerAccount(stack.baseUrl, partner.liveKey);
    const booked = await book(stack.baseUrl, partner.liveKey);
    expect((await accounts(partner.liveKey).delete(`/partner/payment-methods/${account.id}`)).status).toBe(200);

    const paid = await eventually(async () => {
      const res = await accounts(partner.liveKey).get(`/partner/deliveries/${booked.id}`);
      return res.body.payment_status === 'paid' ? res.body : undefined;
    }, 10_000, 'the debit of the earlier booking');
    expect(paid.status).toBe('pending');
    expect(await ledgerOf(stack.orm, booked.id)).toMatchObject([{ phone: SANDBOX.ok, state: 'paid' }]);

    await accounts(partner.liveKey).post(`/partner/deliveries/${booked.id}/cancel`);
  });
});
