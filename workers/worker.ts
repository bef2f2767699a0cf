import { bundleWorkflowCode, NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import type { Settings } from '../config/settings';
import type { KeyMode } from '../domain/api-key';
import { taskQueueFor } from '../workflows/delivery/start';
import { activityLogContext } from './activity-log-context';

export type WorkerTuning = Partial<
  Pick<WorkerOptions, 'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions' | 'maxCachedWorkflows' | 'shutdownForceTime'>
>;

interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  tuning?: WorkerTuning | undefined;
}

/** The live queue's defaults: most activities wait on Postgres or a partner's endpoint, not the CPU. */
const LIVE_DEFAULTS: WorkerTuning = { maxConcurrentActivityTaskExecutions: 200, maxConcurrentWorkflowTaskExecutions: 100 };

/** The test queue's defaults: enough for robo riders and the sandbox network, small beside the live ones. */
const TEST_DEFAULTS: WorkerTuning = { maxConcurrentActivityTaskExecutions: 20, maxConcurrentWorkflowTaskExecutions: 10 };

export interface WorkersSetup {
  connection: NativeConnection;
  namespace: string;
  deps: ActivityDeps;
  /** A prebuilt bundle (production, tests); without it the workflows are bundled once at start. */
  workflowBundlePath?: string | undefined;
  /** TEMPORAL_TASK_QUEUE: the live queue, which names the test one (`taskQueueFor`). */
  liveQueue: string;
  /** The modes whose queues this process polls (WORKER_QUEUES). */
  queues: readonly KeyMode[];
  tuning?: Partial<Record<KeyMode, WorkerTuning>>;
}

export interface QueueWorker {
  mode: KeyMode;
  taskQueue: string;
  worker: Worker;
}

/**
 * One Worker per mode's queue in this process, each with slots of its own, so test-mode work can
 * never take a live slot. They share the activities (one pool, one ORM) and the workflow code.
 */
export async function createWorkers(setup: WorkersSetup): Promise<QueueWorker[]> {
  const activities = createActivities(setup.deps);
  // Bundled once for every queue when no prebuilt bundle is given: bundling takes seconds.
  const bundle = setup.workflowBundlePath
    ? { codePath: setup.workflowBundlePath }
    : setup.queues.length > 1
      ? await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows') })
      : undefined;
  const workers: QueueWorker[] = [];
  for (const mode of setup.queues) {
    const taskQueue = taskQueueFor(setup.liveQueue, mode);
    const worker = await workerOn(
      { connection: setup.connection, namespace: setup.namespace, taskQueue, tuning: setup.tuning?.[mode] },
      bundle,
      activities,
      mode === 'test' ? TEST_DEFAULTS : LIVE_DEFAULTS,
    );
    workers.push({ mode, taskQueue, worker });
  }
  return workers;
}

/** Each queue's capacity as the settings say; what they leave unset keeps the defaults above. */
export function tuningFrom(settings: Settings): Record<KeyMode, WorkerTuning> {
  const shutdownForceTime = `${settings.workerShutdownForceSeconds}s` as const;
  return {
    live: {
      shutdownForceTime,
      ...(settings.workerMaxConcurrentActivities ? { maxConcurrentActivityTaskExecutions: settings.workerMaxConcurrentActivities } : {}),
      ...(settings.workerMaxConcurrentWorkflowTasks ? { maxConcurrentWorkflowTaskExecutions: settings.workerMaxConcurrentWorkflowTasks } : {}),
      ...(settings.workerMaxCachedWorkflows ? { maxCachedWorkflows: settings.workerMaxCachedWorkflows } : {}),
    },
    test: {
      shutdownForceTime,
      ...(settings.workerTestMaxConcurrentActivities ? { maxConcurrentActivityTaskExecutions: settings.workerTestMaxConcurrentActivities } : {}),
      ...(settings.workerTestMaxConcurrentWorkflowTasks ? { maxConcurrentWorkflowTaskExecutions: settings.workerTestMaxConcurrentWorkflowTasks } : {}),
    },
  };
}

/** The delivery worker of one task queue: every workflow and activity, polling that queue only. */
async function workerOn(
  setup: WorkerSetup,
  bundle: WorkerOptions['workflowBundle'],
  activities: ReturnType<typeof createActivities>,
  defaults: WorkerTuning,
): Promise<Worker> {
  return Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    ...(bundle ? { workflowBundle: bundle } : { workflowsPath: require.resolve('../workflows') }),
    activities,
    interceptors: { activity: [activityLogContext] },
    ...defaults,
    ...setup.tuning,
  });
}
