import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { deliveriesByIds } from '../helpers/db-deliveries';
import { ledgerOf } from '../helpers/db-payments';
import { webhookAttemptsOf, webhookEventsOf } from '../helpers/db-webhooks';
import { sleep, WebhookReceiver } from './support';

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
      async () => (await deliveriesByIds(stack.orm, ids)).filter((d) => d.status === 'delivered').length === DELIVERIES,
      20_000,
      'every delivery delivered while the receiver is down',
    );
    const triedWhileDown = await webhookAttemptsOf(stack.orm, ids);
    const failedWhileDown = triedWhileDown.filter((a) => a.error !== null).length;
    expect(receiver.received).toHaveLength(0);
    // The outage is timed from the first failed callback, so a slow run does not lengthen it
    // past the retries' cover.
    const firstTry = Math.min(Date.now(), ...triedWhileDown.map((a) => new Date(a.created_at).getTime()));
    await sleep(Math.max(0, firstTry + DOWN_MS - Date.now()));

    await receiver.up();
    const backAt = Date.now();
    const expected = await webhookEventsOf(stack.orm, ids);
    await eventually(async () => expected.every((e) => receiver.distinctEventIds().has(e.id)), WINDOW_MS, 'every webhook after the receiver returns');
    const tookMs = Date.now() - backAt;
    await eventually(
      async () => (await webhookEventsOf(stack.orm, ids)).filter((e) => e.state === 'delivered').length === expected.length,
      5_000,
      'every event recorded as delivered',
    );
    const attempts = (await webhookAttemptsOf(stack.orm, ids)).length;
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
    const debits = (await ledgerOf(stack.orm, ids)).length;
    expect(debits).toBe(DELIVERIES);
  }, 90_000);
});
