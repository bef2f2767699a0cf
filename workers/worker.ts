import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { activityLogContext } from './activity-log-context';

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A prebuilt bundle (production, tests); without it the workflows are bundled at start. */
  workflowBundlePath?: string;
  tuning?: Partial<Pick<WorkerOptions, 'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions' | 'maxCachedWorkflows' | 'shutdownForceTime'>>;
}

/** The delivery worker: every workflow and activity on one task queue. */
export async function createWorker(setup: WorkerSetup): Promise<Worker> {
  return Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    ...(setup.workflowBundlePath
      ? { workflowBundle: { codePath: setup.workflowBundlePath } }
      : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities(setup.deps),
    interceptors: { activity: [activityLogContext] },
    // Most activities wait on Postgres or a partner's endpoint, not the CPU.
    maxConcurrentActivityTaskExecutions: 200,
    maxConcurrentWorkflowTaskExecutions: 100,
    ...setup.tuning,
  });
}
