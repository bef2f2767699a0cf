import { loadSettings, SettingsError } from '../../config/settings';
import { taskQueueFor } from '../../workflows/delivery/start';

const base = { DATABASE_URL: 'postgres://u@localhost:5432/db' };

describe('worker queues', () => {
  it('polls both queues by default, and the test queue sits beside the live one', () => {
    const settings = loadSettings(base);
    expect(settings.workerQueues).toEqual(['live', 'test']);
    expect(taskQueueFor(settings.temporalTaskQueue, 'live')).toBe('deliveries');
    expect(taskQueueFor(settings.temporalTaskQueue, 'test')).toBe('deliveries-test');
  });

  it('takes WORKER_QUEUES and the test queue capacity from the environment', () => {
    const settings = loadSettings({ ...base, WORKER_QUEUES: ' test ', WORKER_TEST_MAX_CONCURRENT_ACTIVITIES: '5', WORKER_TEST_MAX_CONCURRENT_WORKFLOW_TASKS: '3' });
    expect(settings.workerQueues).toEqual(['test']);
    expect(settings.workerTestMaxConcurrentActivities).toBe(5);
    expect(settings.workerTestMaxConcurrentWorkflowTasks).toBe(3);
  });

  it('refuses a queue it does not know, or none', () => {
    for (const value of ['live,staging', ',']) {
      expect(() => loadSettings({ ...base, WORKER_QUEUES: value })).toThrow(SettingsError);
    }
  });
});
