import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import * as workflows from '../../workflows';
import { startTestStack } from '../helpers/stack';
import { historyFromJson } from './history-json';
import { RECORDING_ENV, SCENARIOS, recordHistories } from './record-histories';

// Recorded histories of every workflow, replayed against the current code: a change that would
// make a running delivery take a different path (new activity, reordered timer, removed signal)
// fails here instead of failing in-flight workflows in production. How such a change ships is in
// docs/decisions/0118-workflow-versioning.md; re-record with `npm run record:histories`.

const HISTORIES = path.join(__dirname, 'histories');

interface Fixture {
  name: string;
  history: { events: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[] };
}

function fixtures(): Fixture[] {
  return readdirSync(HISTORIES)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ name: path.basename(file, '.json'), history: JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')) }));
}

const workflowTypeOf = (fixture: Fixture) => fixture.history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;

beforeAll(async () => {
  if (!process.env.RECORD_HISTORIES) return;
  const stack = await startTestStack({ env: RECORDING_ENV });
  try {
    const only = process.env.RECORD_ONLY?.split(',').filter((name): name is (typeof SCENARIOS)[number] => (SCENARIOS as readonly string[]).includes(name));
    await recordHistories(stack, HISTORIES, only?.length ? only : undefined);
  } finally {
    await stack.close();
  }
}, 120_000);

describe('recorded workflow histories', () => {
  it('cover every workflow the worker runs and every recorded scenario', () => {
    const recorded = fixtures();
    expect([...new Set(recorded.map(workflowTypeOf))].sort()).toEqual(Object.keys(workflows).sort());
    expect(recorded.map((fixture) => fixture.name)).toEqual(expect.arrayContaining([...SCENARIOS]));
  });

  it('replay against the current workflow code without a determinism error', async () => {
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // Installed by an earlier test file in this process.
    }
    // The production worker's bundle when `npm test` built one, else the workflow sources.
    const code: ReplayWorkerOptions = process.env.WORKFLOW_BUNDLE
      ? { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE } }
      : { workflowsPath: require.resolve('../../workflows') };
    const recorded = fixtures();
    const results = Worker.runReplayHistories(
      { ...code, replayName: 'determinism-check' },
      recorded.map((fixture) => ({ workflowId: fixture.name, history: historyFromJson(fixture.history) })),
    );
    const outcomes: string[] = [];
    for await (const result of results) outcomes.push(`${result.workflowId}: ${result.error ? result.error.message : 'ok'}`);
    expect(outcomes).toEqual(recorded.map((fixture) => `${fixture.name}: ok`));
  });
});
