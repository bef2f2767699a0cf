import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { DeliveryTimings } from '../../domain/timings';
import { deliveryWorkflow } from '../../workflows/delivery';
import type { DeliveryWorkflowInput } from '../../workflows/messages';
import { createFakeActivities, FakeWorld } from './fake-activities';

/** Timers short enough that each story runs in a few seconds. */
export const SHORT_TIMINGS: DeliveryTimings = {
  dispatchTimeoutSeconds: 60,
  dispatchWidenSeconds: 0.5,
  dispatchInitialRadiusKm: 3,
  dispatchMaxRadiusKm: 15,
  webhookRetryInitialSeconds: 0.05,
  webhookRetryCoefficient: 2,
  webhookTimeoutSeconds: 1,
  roboRiderStepSeconds: 0.1,
  paymentPollSeconds: 0.2,
  paymentConfirmLimitSeconds: 30,
  debitRetryInitialSeconds: 0.05,
  otpMaxAttempts: 3,
  otpLockSeconds: 2,
};

const ACCRA = { lat: 5.6037, lng: -0.187 };

export function deliveryInput(overrides: Partial<Omit<DeliveryWorkflowInput, 'timings'>> & { timings?: Partial<DeliveryTimings> } = {}): DeliveryWorkflowInput {
  const { timings, ...rest } = overrides;
  return {
    deliveryId: randomUUID(),
    partnerId: randomUUID(),
    mode: 'live',
    reference: 'DLV-TEST',
    pickup: ACCRA,
    stops: [],
    dropoff: { lat: 5.56, lng: -0.2 },
    verificationMethod: 'none',
    ...rest,
    timings: { ...SHORT_TIMINGS, ...timings },
  };
}

/**
 * The real delivery workflow on the Temporal dev server `npm test` started (its search attributes
 * registered), with fake activities over a FakeWorld. Each story runs on a task queue of its own
 * and each delivery has a fresh id, so test files share the server as they share the database;
 * starting a server per file cost each file seconds of a core.
 */
export class WorkflowTestEnv {
  private constructor(readonly env: TestWorkflowEnvironment) {}

  static async start(): Promise<WorkflowTestEnv> {
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // Installed by an earlier test file in this process.
    }
    const address = process.env.TEST_TEMPORAL_ADDRESS;
    if (!address) throw new Error('TEST_TEMPORAL_ADDRESS is not set: run the workflow tests through `npm test`');
    return new WorkflowTestEnv(await TestWorkflowEnvironment.createFromExistingServer({ address }));
  }

  async stop(): Promise<void> {
    await this.env.teardown();
  }

  /**
   * Runs `story` while a worker serves the delivery workflow with activities over `world`, on a
   * task queue of its own, or on the previous story's (`sameQueue`), as a restarted worker would.
   */
  async withWorker<T>(world: FakeWorld, story: () => Promise<T>, { sameQueue = false } = {}): Promise<T> {
    const taskQueue = sameQueue && this.taskQueue ? this.taskQueue : `workflow-test-${randomUUID()}`;
    const worker = await Worker.create({
      connection: this.env.nativeConnection,
      taskQueue,
      ...(process.env.WORKFLOW_BUNDLE
        ? { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE } }
        : { workflowsPath: require.resolve('../../workflows') }),
      activities: createFakeActivities(world),
    });
    this.taskQueue = taskQueue;
    return worker.runUntil(story);
  }

  private taskQueue = '';

  /** The client and the task queue of the story under way, to run another workflow there (a Schedule's round). */
  storyQueue(): { client: Client; taskQueue: string } {
    return { client: this.env.client, taskQueue: this.taskQueue };
  }

  /**
   * Starts a delivery on the worker of the story under way. A running local activity holds the
   * workflow task open and messages wait for the next task, which the worker opens at 80% of
   * `workflowTaskTimeout`: a short one lets a story deliver a message while a write is running.
   */
  async startDelivery(input: DeliveryWorkflowInput, options: { workflowTaskTimeout?: Duration } = {}): Promise<WorkflowHandle<typeof deliveryWorkflow>> {
    return this.env.client.workflow.start(deliveryWorkflow, {
      taskQueue: this.taskQueue,
      workflowId: `delivery-${input.deliveryId}`,
      args: [input],
      ...options,
    });
  }
}

/** The shared dev server for the test file that calls this, connected before its tests and let go of after. */
export function useWorkflowEnv(): () => WorkflowTestEnv {
  let env: WorkflowTestEnv | undefined;
  beforeAll(async () => {
    env = await WorkflowTestEnv.start();
  });
  afterAll(async () => {
    await env?.stop();
  });
  return () => env as WorkflowTestEnv;
}

/** A rider as the rider app reports them with each step. */
export const KOFI = { riderId: 'rider-kofi', lat: 5.6, lng: -0.18 };

/** The failure a refused update carries: its type (REFUSAL in domain/steps.ts), message and details. */
export async function refusalOf(update: Promise<unknown>): Promise<{ type: string | undefined; message: string; details: unknown }> {
  try {
    await update;
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const cause = error.cause as { type?: string; message: string; details?: unknown[] };
      return { type: cause.type, message: cause.message, details: cause.details?.[0] };
    }
    throw error;
  }
  throw new Error('The update was not refused');
}

export { FakeWorld };
