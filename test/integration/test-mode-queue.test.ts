import { createBookingSweepActivities } from '../../activities/booking-sweep';
import { createLogger } from '../../config/logger';
import { deliveryWorkflowId } from '../../domain/reference';
import { activityDeps } from '../../workers/activity-deps';
import { taskQueueFor } from '../../workflows/delivery/start';
import { book, commitBookingRow, registerAccount } from '../helpers/bookings';
import { api, eventually } from '../helpers/http';
import { makePartner } from '../helpers/partners';
import { riderApp } from '../helpers/riders';
import { startTestStack, type TestStack } from '../helpers/stack';

/**
 * Security review: test-mode work runs on a task queue of its own with worker slots of its own,
 * so a flood of it (anyone can get a test key) cannot hold up live deliveries.
 */

let stack: TestStack;
let liveQueue: string;
let testQueue: string;
beforeAll(async () => {
  // Both workers are made as small as they can be, so a modest flood saturates whichever queue it lands on.
  stack = await startTestStack({
    env: {
      WORKER_MAX_CONCURRENT_ACTIVITIES: '1',
      WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '2',
      WORKER_TEST_MAX_CONCURRENT_ACTIVITIES: '1',
      WORKER_TEST_MAX_CONCURRENT_WORKFLOW_TASKS: '2',
    },
  });
  liveQueue = stack.settings.temporalTaskQueue;
  testQueue = taskQueueFor(liveQueue, 'test');
});
afterAll(async () => {
  await stack?.close();
});

const queueOf = async (workflowId: string) => (await stack.temporal.workflow.getHandle(workflowId).describe()).taskQueue;

describe('test mode on a task queue of its own', () => {
  it('runs one worker per queue, each polling only its own', () => {
    expect(testQueue).not.toBe(liveQueue);
    expect(stack.worker?.options.taskQueue).toBe(liveQueue);
    expect(stack.testWorker?.options.taskQueue).toBe(testQueue);
  });

  it('starts a live booking on the live queue, served with the test worker stopped', async () => {
    await stack.startWorker();
    await stack.stopWorker(['test']);
    try {
      const partner = await makePartner(stack.orm);
      await registerAccount(stack.baseUrl, partner.liveKey);
      const rider = await riderApp(stack.baseUrl, stack.orm, 'Ama Live');
      const created = await book(stack.baseUrl, partner.liveKey);
      expect(await queueOf(deliveryWorkflowId(created.id))).toBe(liveQueue);
      // The workflow runs (its first activities offer the job) with only the live worker up.
      await rider.waitForOffer(created.id);
    } finally {
      await stack.startWorker(['test']);
    }
  }, 30_000);

  it('serves a test-mode booking end to end with the live worker stopped', async () => {
    await stack.stopWorker(['live']);
    try {
      const partner = await makePartner(stack.orm);
      await registerAccount(stack.baseUrl, partner.testKey);
      const created = await book(stack.baseUrl, partner.testKey);
      expect(await queueOf(deliveryWorkflowId(created.id))).toBe(testQueue);
      const client = api(stack.baseUrl, partner.testKey);
      await eventually(async () => {
        const res = await client.get(`/partner/deliveries/${created.id}`);
        return res.body.status === 'delivered' && res.body.payment_status === 'paid';
      }, 20_000, 'robo delivery on the test queue');
      // The robo rider, a child workflow, followed its parent onto the test queue.
      expect(await queueOf(`robo-rider-${created.id}`)).toBe(testQueue);
    } finally {
      await stack.startWorker(['live']);
    }
  }, 40_000);

  it('has the booking sweeper start each orphan on the queue of its mode', async () => {
    const partner = await makePartner(stack.orm);
    const testAccount = await registerAccount(stack.baseUrl, partner.testKey);
    const liveAccount = await registerAccount(stack.baseUrl, partner.liveKey);
    const testOrphan = await commitBookingRow(stack.orm, { partnerId: partner.partnerId, mode: 'test', paymentMethodId: testAccount.id });
    const liveOrphan = await commitBookingRow(stack.orm, { partnerId: partner.partnerId, mode: 'live', paymentMethodId: liveAccount.id });
    const { settings, orm, temporal, deps } = stack;
    const { sweepOrphanedBookings } = createBookingSweepActivities(
      activityDeps({ settings: { ...settings, bookingOrphanAfterSeconds: 1 }, orm, temporal, logger: createLogger({ level: 'error', json: false, service: 'test' }), gateways: deps.gateways }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // The sweeper runs on the live queue, as its schedule starts it.
    await sweepOrphanedBookings({ taskQueue: liveQueue });
    expect(await queueOf(deliveryWorkflowId(testOrphan))).toBe(testQueue);
    expect(await queueOf(deliveryWorkflowId(liveOrphan))).toBe(liveQueue);
  }, 30_000);

  it('keeps a live booking prompt while a flood of test-mode bookings saturates the test worker', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await riderApp(stack.baseUrl, stack.orm, 'Kwame Live');
    const flood = await Promise.all(Array.from({ length: 80 }, () => book(stack.baseUrl, partner.testKey)));
    try {
      const started = Date.now();
      const live = await book(stack.baseUrl, partner.liveKey);
      await rider.waitForOffer(live.id);
      // A handful of activities on an idle live worker (about 0.2 s here); the flood's backlog on
      // one shared slot took over 2.5 s before test mode had its own queue.
      const tookMs = Date.now() - started;
      expect(tookMs).toBeLessThan(1_500);
      // And the flood was real: the one-slot test worker is still behind on it.
      const statuses = await Promise.all(flood.map(async (d) => (await api(stack.baseUrl, partner.testKey).get(`/partner/deliveries/${d.id}`)).body.status));
      expect(statuses.filter((s) => s !== 'delivered').length).toBeGreaterThan(0);
    } finally {
      await Promise.all(flood.map((d) => stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id)).terminate('test over').catch(() => undefined)));
    }
  }, 60_000);
});
