import { randomUUID } from 'node:crypto';
import { retentionWorkflow, type RetentionInput } from '../../workflows/retention';
import { FakeWorld, useWorkflowEnv } from './workflow-env';

const env = useWorkflowEnv();
const DAY_MS = 24 * 60 * 60 * 1000;

/** One round, as the daily Schedule starts it, on the worker of the story under way. */
function round(input: RetentionInput) {
  const { client, taskQueue } = env().storyQueue();
  return client.workflow.execute(retentionWorkflow, { taskQueue, workflowId: `retention-${randomUUID()}`, args: [input] });
}

describe('the retention round', () => {
  it('redacts, oldest first and batch after batch, every delivery that ended RETENTION_DAYS ago or more, then removes ended jobs’ codes', async () => {
    const world = new FakeWorld();
    const now = Date.now();
    for (let i = 0; i < 5; i += 1) world.finishedAt.set(`old-${i}`, now - (95 + i) * DAY_MS);
    world.finishedAt.set('recent', now - 89 * DAY_MS);
    world.endedJobCodes = 3;

    const report = await env().withWorker(world, () => round({ retentionDays: 90, batch: 2 }));

    expect(world.redacted).toEqual(['old-4', 'old-3', 'old-2', 'old-1', 'old-0']);
    // Three batches of two: the third comes back short, and the round moves on.
    expect(world.cutoffsAsked).toHaveLength(3);
    const cutoff = Date.parse(report.cutoff);
    expect(new Set(world.cutoffsAsked)).toEqual(new Set([report.cutoff]));
    expect(cutoff).toBeGreaterThan(now - 90 * DAY_MS - 60_000);
    expect(cutoff).toBeLessThan(Date.now() - 90 * DAY_MS + 60_000);
    expect(report).toEqual({ cutoff: report.cutoff, redacted: 5, codeTexts: 3, codeHashes: 3, photoUploads: 0 });
    expect(world.endedJobCodes).toBe(0);
  });

  it('asks once and redacts nothing when no delivery ended long enough ago', async () => {
    const world = new FakeWorld();
    world.finishedAt.set('recent', Date.now() - DAY_MS / 2);

    const report = await env().withWorker(world, () => round({ retentionDays: 1, batch: 200 }));

    expect(world.cutoffsAsked).toHaveLength(1);
    expect(world.redacted).toEqual([]);
    expect(report).toMatchObject({ redacted: 0, codeTexts: 0 });
  });
});
