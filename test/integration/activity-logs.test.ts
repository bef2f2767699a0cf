import { book, registerAccount } from '../helpers/bookings';
import { api, eventually } from '../helpers/http';
import { makePartner } from '../helpers/partners';
import { startTestStack, type TestStack } from '../helpers/stack';
import { capturingLogger } from '../helpers/captured-logs';

// What ops search the logs by: one delivery's id finds every line any worker wrote about it.
const { logger, lines: text } = capturingLogger('info', 'worker');
const lines = () => text.map((line) => JSON.parse(line) as Record<string, unknown>);
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ activityOverrides: { logger } });
});

afterAll(async () => {
  await stack?.close();
});

describe('worker logs', () => {
  it('tag every line an activity writes with its delivery, workflow and activity, as JSON', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const created = await book(stack.baseUrl, partner.testKey);
    await eventually(async () => {
      const { body } = await api(stack.baseUrl, partner.testKey).get(`/partner/deliveries/${created.id}`);
      return body.payment_status === 'paid';
    }, 20_000, 'the debit settled');

    const settled = await eventually(async () => lines().find((line) => line.message === 'Payment settled' && line.deliveryId === created.id));
    expect(settled).toMatchObject({
      level: 'info',
      service: 'worker',
      deliveryId: created.id,
      workflowId: `delivery-${created.id}`,
      activityType: 'recordPayment',
      timestamp: expect.any(String),
    });
    const requested = lines().find((line) => line.message === 'Debit requested' && line.deliveryId === created.id);
    expect(requested).toMatchObject({ partnerId: partner.partnerId, workflowId: `delivery-${created.id}`, activityType: 'requestDebit' });
  });
});
