import { initOrm, type Orm } from '../../db/orm';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy';
import { SANDBOX, bookingBody, registerAccount } from '../helpers/bookings';
import { api, eventually } from '../helpers/http';
import { makePartner } from '../helpers/partners';
import { startTestStack, type TestStack } from '../helpers/stack';
import { deliveryIdsOf } from '../helpers/db-deliveries';
import { paymentMethodsOf } from '../helpers/db-payments';
import { ageIdempotencyKey } from '../helpers/db-requests';

// The API reaches Postgres through a relay that can lose the answer to a COMMIT: the transaction
// is committed, but the API's connection is cut before it hears so.
const COMMIT = /Q[\s\S]{4}COMMIT/i;

let proxy: TcpProxy;
let apiOrm: Orm;
let stack: TestStack;
beforeAll(async () => {
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  proxy = await startTcpProxy(url.hostname, Number(url.port));
  url.host = `127.0.0.1:${proxy.port}`;
  apiOrm = await initOrm(url.toString(), 4);
  stack = await startTestStack({ appOverrides: { orm: apiOrm } });
});
afterAll(async () => {
  await stack?.close();
  await apiOrm?.close();
  await proxy?.close();
});

const deliveriesOf = (partnerId: string) => deliveryIdsOf(stack.orm, partnerId);
const accountsOf = async (partnerId: string) => (await paymentMethodsOf(stack.orm, partnerId)).map((m) => m.id);

/** Postgres goes away for a second as the COMMIT's answer is lost, so the API cannot look for what it saved. */
function loseCommitAnswerAndPostgresBriefly(): void {
  proxy.loseNextAnswerTo(COMMIT, () => {
    void proxy.cut().then(() => setTimeout(() => void proxy.restore(), 1_000));
  });
}

/** A new partner with a sandbox account, and a client on its test key. */
async function partnerReadyToBook() {
  const partner = await makePartner(stack.orm);
  await registerAccount(stack.baseUrl, partner.testKey);
  return { partner, client: api(stack.baseUrl, partner.testKey) };
}

describe('a booking whose COMMIT went through but whose answer was lost', () => {
  it('is answered 201 with the delivery it booked, not an error that invites a second booking', async () => {
    const { partner, client } = await partnerReadyToBook();

    proxy.loseNextAnswerTo(COMMIT);
    const booked = await client.post('/partner/deliveries', bookingBody());
    expect(booked.status).toBe(201);
    expect(await deliveriesOf(partner.partnerId)).toEqual([booked.body.id]);
    // The robo rider and the debit run side by side: wait for both.
    await eventually(async () => {
      const res = await client.get(`/partner/deliveries/${booked.body.id}`);
      return res.body.status === 'delivered' && res.body.payment_status === 'paid';
    }, 30_000, 'the robo rider to deliver it, and its debit');
  }, 60_000);

  it('answers a repeat under the same Idempotency-Key with that delivery when Postgres was briefly gone too', async () => {
    const { partner, client } = await partnerReadyToBook();
    const headers = { 'Idempotency-Key': 'order-lost-answer' };

    // The API tells the partner to try again, and lets go of the key once Postgres is back.
    loseCommitAnswerAndPostgresBriefly();
    const first = await client.post('/partner/deliveries', bookingBody(), headers);
    expect(first.status).toBe(503);
    const [id] = await deliveriesOf(partner.partnerId);
    expect(id).toBeDefined();

    const repeat = await client.post('/partner/deliveries', bookingBody(), headers);
    expect(repeat.status).toBe(201);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body).toMatchObject({ id, status: expect.any(String), payment_status: expect.any(String) });
    expect(await deliveriesOf(partner.partnerId)).toEqual([id]);
  }, 60_000);

  it('answers it so too when the key could not be released and its claim has lapsed', async () => {
    const { partner, client } = await partnerReadyToBook();
    const headers = { 'Idempotency-Key': 'order-claim-lapsed' };

    // Postgres stays away longer than the API tries to settle the key: the claim is left unanswered.
    proxy.loseNextAnswerTo(COMMIT, () => void proxy.cut());
    let first;
    try {
      first = await client.post('/partner/deliveries', bookingBody(), headers);
    } finally {
      await proxy.restore();
    }
    expect(first.status).toBe(503);
    const [id] = await deliveriesOf(partner.partnerId);
    expect(id).toBeDefined();
    // As if the 2 minutes after which an unanswered claim counts as abandoned had passed.
    await ageIdempotencyKey(stack.orm, partner.partnerId, headers['Idempotency-Key'], { minutes: 3 });

    const repeat = await client.post('/partner/deliveries', bookingBody(), headers);
    expect(repeat.status).toBe(201);
    expect(repeat.body.id).toBe(id);
    expect(await deliveriesOf(partner.partnerId)).toEqual([id]);
  }, 60_000);
});

describe('an account registration whose COMMIT went through but whose answer was lost', () => {
  const account = { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Test Shop Ltd' };

  it('is answered 201 with the account it saved', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.testKey);

    proxy.loseNextAnswerTo(COMMIT);
    const saved = await client.post('/partner/payment-methods', account);
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ phone: SANDBOX.ok, is_default: true });
    expect(await accountsOf(partner.partnerId)).toEqual([saved.body.id]);
  }, 30_000);

  it('answers a repeat under the same Idempotency-Key with that account when Postgres was briefly gone too', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.testKey);
    const headers = { 'Idempotency-Key': 'account-lost-answer' };

    loseCommitAnswerAndPostgresBriefly();
    const first = await client.post('/partner/payment-methods', account, headers);
    expect(first.status).toBe(503);
    const [id] = await accountsOf(partner.partnerId);
    expect(id).toBeDefined();

    const repeat = await client.post('/partner/payment-methods', account, headers);
    expect(repeat.status).toBe(201);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body).toMatchObject({ id, phone: SANDBOX.ok, is_default: true });
    expect(await accountsOf(partner.partnerId)).toEqual([id]);
  }, 30_000);
});
