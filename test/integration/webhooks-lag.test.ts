import os from 'node:os';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { book, registerAccount } from '../helpers/bookings';
import { startTestReceiver, type TestReceiver } from '../helpers/webhook-test-receiver';
import { deliveryWorkflowId } from '../../domain/reference';

const DELIVERIES = 25;
const BOOK_EVERY_MS = 250;

let stack: TestStack;
let receiver: TestReceiver;
beforeAll(async () => {
  stack = await startTestStack();
  receiver = await startTestReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

describe('callback lag', () => {
  it(`measures the time from a status change to its callback's arrival over ${DELIVERIES * 4} events`, async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    await receiver.subscribe(stack.baseUrl, partner.testKey);

    // A steady flow rather than one burst: with a delivery booked every BOOK_EVERY_MS, about
    // half a dozen are under way at any moment.
    const booked: { id: string }[] = [];
    for (let i = 0; i < DELIVERIES; i++) {
      booked.push(await book(stack.baseUrl, partner.testKey));
      await new Promise((resolve) => setTimeout(resolve, BOOK_EVERY_MS));
    }
    await Promise.all(booked.map((d) => stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).result()));

    // Both clocks are this machine's: occurred_at is the workflow's time of the change.
    const lags = receiver.arrivals.map((a) => a.arrivedAt - Date.parse(a.body.occurred_at)).sort((a, b) => a - b);
    expect(lags).toHaveLength(DELIVERIES * 4);
    expect(receiver.arrivals.every((a) => a.validSignature && a.answeredWith === 204)).toBe(true);
    console.log(
      `Callback lag from status change to arrival over ${lags.length} events: ` +
        `median ${percentile(lags, 50)} ms, p99 ${percentile(lags, 99)} ms, max ${lags[lags.length - 1]} ms ` +
        `(${DELIVERIES} deliveries, one booked every ${BOOK_EVERY_MS} ms; ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)})`,
    );
  });
});
