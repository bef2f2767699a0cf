import { loadSettings } from '../../config/settings';
import { retentionWorkflow } from '../../workflows';
import { projectSchedules } from '../../workers/schedules';

describe("the worker's Temporal Schedules", () => {
  it('start the retention round every day at 02:30 UTC with RETENTION_DAYS, never two at once, catching up a missed day', () => {
    const settings = loadSettings({ DATABASE_URL: 'postgres://u@localhost:5432/db', TEMPORAL_TASK_QUEUE: 'deliveries', RETENTION_DAYS: '30' });

    const retention = projectSchedules(settings).find((schedule) => schedule.scheduleId === 'retention-deliveries');

    expect(retention).toMatchObject({
      spec: { calendars: [{ hour: 2, minute: 30 }] },
      action: { type: 'startWorkflow', workflowType: retentionWorkflow, taskQueue: 'deliveries', args: [{ retentionDays: 30, batch: 200 }] },
      policies: { overlap: 'SKIP', catchupWindow: '1 day' },
    });
  });
});
