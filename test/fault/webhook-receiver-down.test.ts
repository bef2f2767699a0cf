import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { count, sleep, WebhookReceiver } from './support';

const DELIVERIES = 5;
const DOWN_MS = 5_000;
// Retries after 0.5, 1, 2, 4 and 8 s: 15.5 s of cover, three times the outage.
const RETRY = { WEBHOOK_RETRY_INITIAL_SECONDS: '0.5', WEBHOOK_RETRY_COEFFICIENT: '2' };
const WINDOW_MS = 15_500;

let stack: TestStack;
const receiver = new WebhookReceiver();
beforeAll(async () => {
  stack = await startTestStack({ env: { ...RETRY, ROBO_RIDER_STEP_SECONDS: '0.3' } });
});
afterAll(async () => {
  await receiver.down();
  await stack?.close();
});

describe('a partner’s webhook receiver down for a while', () => {
  it('gets every event once it is back, within the retry window', async () => {
    await receiver.up();
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const client = api(stack.baseUrl, partner.testKey);
    expect((await client.put('/partner/webhook', { webhook_url: receiver.url })).status).toBe(200);
    await receiver.down();

    const ids = (await Promise.all(Array.from({ length: DELIVERIES }, () => book(stack.baseUrl, partner.testKey)))).map((b) => b.id);
    // Read from the table, not the API: polling five deliveries would spend the key's rate limit.
    await eventually(
      async () => (await count(stack.orm, `deliveries where id in (?) and status = 'delivered'`, [ids])) === DELIVERIES,
      20_000,
      'every delivery delivered while the receiver is down',
    );
    const failedWhileDown = await count(stack.orm, 'webhook_attempts a join webhook_events e on e.id = a.event_id where e.delivery_id in (?) and a.error is not null', [ids]);
    expect(receiver.received).toHaveLength(0);
    // The outage is timed from the first failed callback, so a slow run does not lengthen it
    // past the retries' cover.
    const [first] = await stack.orm.em
      .fork()
      .execute<{ at: Date }[]>('select min(a.created_at) as at from webhook_attempts a join webhook_events e on e.id = a.event_id where e.delivery_id in (?)', [ids]);
    await sleep(Math.max(0, new Date(first!.at).getTime() + DOWN_MS - Date.now()));

    await receiver.up();
    const backAt = Date.now();
    const expected = await stack.orm.em.fork().execute<{ id: string }[]>('select id from webhook_events where delivery_id in (?)', [ids]);
    await eventually(async () => expected.every((e) => receiver.distinctEventIds().has(e.id)), WINDOW_MS, 'every webhook after the receiver returns');
    const tookMs = Date.now() - backAt;
    await eventually(
      async () => (await count(stack.orm, `webhook_events where delivery_id in (?) and state = 'delivered'`, [ids])) === expected.length,
      5_000,
      'every event recorded as delivered',
    );
    const attempts = await count(stack.orm, 'webhook_attempts a join webhook_events e on e.id = a.event_id where e.delivery_id in (?)', [ids]);
    const received = expected.filter((e) => receiver.distinctEventIds().has(e.id)).length;

    process.stdout.write(
      [
        `fault: webhook receiver down for about ${DOWN_MS / 1000} s`,
        `  deliveries in flight: ${DELIVERIES}; failed attempts while down: ${failedWhileDown}; attempts in all: ${attempts}`,
        `  webhook events expected ${expected.length}, received ${received} within ${(tookMs / 1000).toFixed(1)} s of the receiver's return (window ${WINDOW_MS / 1000} s)`,
        '',
      ].join('\n'),
    );
    expect(expected).toHaveLength(DELIVERIES * 4);
    expect(received).toBe(expected.length);
    expect(failedWhileDown).toBeGreaterThan(0);
    const debits = await count(stack.orm, 'sandbox_momo_transactions where reference in (?)', [ids]);
    expect(debits).toBe(DELIVERIES);
  }, 90_000);
});
