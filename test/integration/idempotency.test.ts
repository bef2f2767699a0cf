import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { bookingBody, registerAccount, SANDBOX } from '../helpers/bookings';
import { deliveryIdsOf } from '../helpers/db-deliveries';
import { debitsOf, ledgerOf, paymentMethodsOf } from '../helpers/db-payments';
import { ageIdempotencyKey, leaveUnansweredClaim } from '../helpers/db-requests';
import { keyDigest, recordAnswer, release, type IdempotencyKeyIds } from '../../db/idempotency';
import { KeySettledNotices } from '../../db/idempotency-notices';
import { requestHash } from '../../api/partner/idempotent-requests';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

async function deliveryWorkflows(partnerId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const info of stack.temporal.workflow.list({ query: `WorkflowType = 'deliveryWorkflow' AND PartnerId = '${partnerId}'` })) {
    ids.push(info.workflowId);
  }
  return ids;
}

describe('Idempotency-Key on booking', () => {
  it('turns ten concurrent identical bookings into one delivery, one workflow and one debit, each answered with it', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const client = api(stack.baseUrl, partner.testKey);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'order-1001' })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    const [id] = [...ids] as [string];
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
    for (const answer of answers) expect(answer.body).toEqual(answers[0]?.body);

    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toHaveLength(1);
    // The robo rider walks it to the end and the sandbox network confirms the debit.
    await eventually(async () => {
      const res = await client.get(`/partner/deliveries/${id}`);
      return res.body.status === 'delivered' && res.body.payment_status === 'paid';
    }, 20_000, 'delivered and paid');
    expect(await debitsOf(stack.orm, id)).toHaveLength(1);
    expect(await ledgerOf(stack.orm, id)).toHaveLength(1);
    const workflows = await eventually(async () => {
      const found = await deliveryWorkflows(partner.partnerId);
      return found.length > 0 ? found : undefined;
    }, 10_000, 'workflow listed');
    expect(workflows).toEqual([`delivery-${id}`]);
    process.stdout.write(`idempotency: 10 concurrent bookings → deliveries 1, workflows ${workflows.length}, debits 1\n`);
  });

  it('replays the first answer later, also when the same fields come in another order', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    const body = bookingBody({ package_description: 'Two boxes of shoes' });
    const first = await client.post('/partner/deliveries', body, { 'Idempotency-Key': 'k-replay' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await client.post('/partner/deliveries', reordered, { 'Idempotency-Key': 'k-replay' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toHaveLength(1);
    await client.post(`/partner/deliveries/${first.body.id}/cancel`);
  });

  it('refuses the same key with a different body with 409 conflict, also while the first is still running', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    const [a, b] = await Promise.all([
      client.post('/partner/deliveries', bookingBody({ recipient_name: 'Kwame Asante' }), { 'Idempotency-Key': 'k-race' }),
      client.post('/partner/deliveries', bookingBody({ recipient_name: 'Abena Osei' }), { 'Idempotency-Key': 'k-race' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const refused = a.status === 409 ? a : b;
    expect(refused.body).toEqual({ error: { code: 'conflict', message: expect.any(String), details: {} } });
    const later = await client.post('/partner/deliveries', bookingBody({ package_size: 'large' }), { 'Idempotency-Key': 'k-race' });
    expect(later.status).toBe(409);
    expect(later.body.error.code).toBe('conflict');
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toHaveLength(1);
    const created = a.status === 201 ? a : b;
    await client.post(`/partner/deliveries/${created.body.id}/cancel`);
  });

  it('keeps keys apart per partner and per mode', async () => {
    const one = await makePartner(stack.orm);
    const two = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, one.liveKey);
    await registerAccount(stack.baseUrl, one.testKey);
    await registerAccount(stack.baseUrl, two.liveKey);
    const headers = { 'Idempotency-Key': 'shared-key' };
    const answers = await Promise.all([
      api(stack.baseUrl, one.liveKey).post('/partner/deliveries', bookingBody(), headers),
      api(stack.baseUrl, one.testKey).post('/partner/deliveries', bookingBody(), headers),
      api(stack.baseUrl, two.liveKey).post('/partner/deliveries', bookingBody(), headers),
    ]);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(3);
    expect(answers.some((a) => a.headers.get('idempotent-replayed'))).toBe(false);
    await api(stack.baseUrl, one.liveKey).post(`/partner/deliveries/${answers[0]?.body.id}/cancel`);
    await api(stack.baseUrl, two.liveKey).post(`/partner/deliveries/${answers[2]?.body.id}/cancel`);
  });

  it('frees a key whose first request died without an answer once the claim is two minutes old', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    // A claim left by an API process that died mid-request.
    await leaveUnansweredClaim(stack.orm, { partnerId: partner.partnerId, mode: 'live', scope: 'deliveries', key: 'k-orphan', requestHash: 'whatever', age: { minutes: 3 } });
    const client = api(stack.baseUrl, partner.liveKey);
    const res = await client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'k-orphan' });
    expect(res.status).toBe(201);
    const again = await client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'k-orphan' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(res.body.id);
    await client.post(`/partner/deliveries/${res.body.id}/cancel`);
  });

  it('tells a repeat to come back (409, Retry-After) while the first is unresolved past its own deadline', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const body = bookingBody();
    // A first request still running 40 s on (booking allows the Temporal deadline and five seconds).
    await leaveUnansweredClaim(stack.orm, {
      partnerId: partner.partnerId,
      mode: 'test',
      scope: 'deliveries',
      key: 'k-unresolved',
      requestHash: requestHash('POST', '/partner/deliveries', body),
      age: { seconds: stack.settings.temporalCallTimeoutSeconds + 10 },
    });
    const sent = Date.now();
    const repeat = await api(stack.baseUrl, partner.testKey).post('/partner/deliveries', body, { 'Idempotency-Key': 'k-unresolved' });
    expect(Date.now() - sent).toBeLessThan(5_000);
    expect(repeat.status).toBe(409);
    expect(repeat.headers.get('retry-after')).toBe('2');
    expect(repeat.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('has not finished') });
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toEqual([]);
  });

  it('replays within 24 hours of the first request, and books anew with the same key after that', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    const key = { 'Idempotency-Key': 'k-a-day' };
    const first = await client.post('/partner/deliveries', bookingBody(), key);
    expect(first.status).toBe(201);
    await ageIdempotencyKey(stack.orm, partner.partnerId, 'k-a-day', { hours: 23, minutes: 59 });
    const sameDay = await client.post('/partner/deliveries', bookingBody(), key);
    expect(sameDay.headers.get('idempotent-replayed')).toBe('true');
    expect(sameDay.body.id).toBe(first.body.id);

    await ageIdempotencyKey(stack.orm, partner.partnerId, 'k-a-day', { hours: 24, minutes: 1 });
    const nextDay = await client.post('/partner/deliveries', bookingBody(), key);
    expect(nextDay.status).toBe(201);
    expect(nextDay.headers.get('idempotent-replayed')).toBeNull();
    expect(nextDay.body.id).not.toBe(first.body.id);
    for (const id of [first.body.id, nextDay.body.id]) await client.post(`/partner/deliveries/${id}/cancel`);
  });

  it('keeps no refusal under a key: a retry once the cause is put right books, with the same body or a corrected one', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    // Refused: no Mobile Money account yet. The partner registers one and retries as it was.
    const refused = await client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'k-no-account' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('bad_request');
    await registerAccount(stack.baseUrl, partner.liveKey);
    const retried = await client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'k-no-account' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    // Refused by a rule past the schema (too far ahead); the corrected body under the same key books.
    const tooFar = new Date(Date.now() + 40 * 24 * 3600 * 1000).toISOString();
    const later = await client.post('/partner/deliveries', bookingBody({ scheduled_at: tooFar }), { 'Idempotency-Key': 'k-schedule' });
    expect(later.status).toBe(400);
    const corrected = await client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'k-schedule' });
    expect(corrected.status).toBe(201);
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toHaveLength(2);
    const again = await client.post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'k-schedule' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(corrected.body.id);
    for (const id of [retried.body.id, corrected.body.id]) await client.post(`/partner/deliveries/${id}/cancel`);
  });

  it('refuses an Idempotency-Key longer than 255 characters', async () => {
    const partner = await makePartner(stack.orm);
    const res = await api(stack.baseUrl, partner.liveKey).post('/partner/deliveries', bookingBody(), { 'Idempotency-Key': 'k'.repeat(256) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('bad_request');
    expect(await deliveryIdsOf(stack.orm, partner.partnerId)).toHaveLength(0);
  });
});

describe('Idempotency-Key on registering a Mobile Money account', () => {
  it('turns ten concurrent identical registrations into one account, each answered with it', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    const body = { provider: 'network_a', phone: SANDBOX.ok, account_name: 'Test Shop Ltd' };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => client.post('/partner/payment-methods', body, { 'Idempotency-Key': 'momo-1' })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await paymentMethodsOf(stack.orm, partner.partnerId)).toHaveLength(1);
    const different = await client.post('/partner/payment-methods', { ...body, phone: SANDBOX.named }, { 'Idempotency-Key': 'momo-1' });
    expect(different.status).toBe(409);
    expect(different.body.error.code).toBe('conflict');
    // Without a key, a second registration is a second account.
    expect((await client.post('/partner/payment-methods', body)).status).toBe(201);
    expect(await paymentMethodsOf(stack.orm, partner.partnerId)).toHaveLength(2);
  });
});

describe('Repeats waiting in another API process', () => {
  it('hear through Postgres when the first request settles its key, and only that key', async () => {
    const partner = await makePartner(stack.orm);
    const answered: IdempotencyKeyIds = [partner.partnerId, 'test', 'deliveries', 'k-answered'];
    const refused: IdempotencyKeyIds = [partner.partnerId, 'test', 'deliveries', 'k-refused'];
    const other: IdempotencyKeyIds = [partner.partnerId, 'test', 'deliveries', 'k-other'];
    for (const [, mode, scope, key] of [answered, refused, other]) {
      await leaveUnansweredClaim(stack.orm, { partnerId: partner.partnerId, mode: mode as 'test', scope, key, requestHash: 'h', age: { minutes: 0 } });
    }
    // The listening process has a connection of its own; the settling one uses the pool's.
    const notices = KeySettledNotices.from(stack.orm.em, 0);
    const heard: string[] = [];
    const stops = await Promise.all([answered, refused].map((ids) => notices.listen(keyDigest(ids), () => heard.push(ids[3]))));
    try {
      await recordAnswer(stack.orm.em.fork(), answered, 201, '{}');
      await release(stack.orm.em.fork(), refused);
      await release(stack.orm.em.fork(), other);
      await eventually(async () => heard.length >= 2, 5_000, 'both notices');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard.sort()).toEqual(['k-answered', 'k-refused']);
    } finally {
      for (const stop of stops) stop();
      await notices.close();
    }
  });
});
