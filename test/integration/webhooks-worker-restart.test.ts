import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { startTestReceiver, type TestReceiver } from '../helpers/webhook-test-receiver';
import { deliveryWorkflowId } from '../../domain/reference';

// The failed first attempt is expected; the SDK would log it with a stack trace.
try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Installed already by an earlier test file in this jest worker.
}

const RETRY_AFTER_SECONDS = 3;

let stack: TestStack;
let receiver: TestReceiver;
beforeAll(async () => {
  // A retry wait long enough to stop the worker inside it.
  stack = await startTestStack({ env: { WEBHOOK_RETRY_INITIAL_SECONDS: String(RETRY_AFTER_SECONDS) } });
  receiver = await startTestReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('callbacks across a worker restart', () => {
  it('still delivers a callback whose retry was due while no worker was running', async () => {
    const partner = await makePartner(stack.orm);
    const client = api(stack.baseUrl, partner.liveKey);
    await registerAccount(stack.baseUrl, partner.liveKey);
    await receiver.subscribe(stack.baseUrl, partner.liveKey);
    receiver.onCallback = async (_callback, tries) => {
      if (tries === 1) throw new Error('receiver down');
    };
    const created = await book(stack.baseUrl, partner.liveKey);
    expect((await client.post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);

    const [first] = await eventually(async () => {
      const arrivals = receiver.arrivalsFor(created.id);
      return arrivals.length === 1 && arrivals[0]!.answeredWith === 500 ? arrivals : undefined;
    }, 10_000, 'the first attempt');
    await stack.stopWorker();
    const stoppedAt = Date.now();
    // Past the moment the retry was due: nothing can send it while the worker is down.
    await sleep(Math.max(0, first!.arrivedAt + (RETRY_AFTER_SECONDS + 1) * 1000 - stoppedAt));
    expect(receiver.arrivalsFor(created.id)).toHaveLength(1);

    await stack.startWorker();
    const [, retry] = await eventually(async () => {
      const arrivals = receiver.arrivalsFor(created.id);
      return arrivals.length === 2 && arrivals[1]!.answeredWith ? arrivals : undefined;
    }, 20_000, 'the retry after the restart');
    expect(retry!.arrivedAt).toBeGreaterThan(stoppedAt);
    expect(retry!.raw.equals(first!.raw)).toBe(true);
    expect(retry!.headers['x-service-event-id']).toBe(first!.headers['x-service-event-id']);
    expect(retry!.validSignature).toBe(true);
    expect(retry!.answeredWith).toBe(204);

    const state = await stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result();
    expect(state).toMatchObject({ status: 'cancelled', webhooksOutstanding: 0 });
    const log = (await client.get('/partner/webhook/deliveries')).body as { state: string; attempts: { attempt: number; status_code: number }[] }[];
    expect(log[0]!.state).toBe('delivered');
    expect(log[0]!.attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [2, 204],
      [1, 500],
    ]);
  });
});
