import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBench } from '../helpers/bench';

type Load = { rps: number; errors: number; cpuMsPerRequest: number | null };
type Summary = { count: number; p50: number };
type Scenario = Load & {
  id: string;
  baseline?: Load;
  e2e?: { completed: number; webhooksMissing: number; failureCount: number; webhookLag: Summary; acceptAnswerP50: number };
  timings?: Record<string, Summary>;
};
type Results = {
  scenarios: Scenario[];
  webhooks: { received: number; duplicates: number; badSignatures: number };
  peakMemory: { api: number; worker: number };
};

// The whole harness as a user runs it (its own dev server, embedded PostgreSQL, API, worker and
// floors), every scenario at a size that takes well under a minute of load. Figures at this size
// say nothing about speed; what is checked is that each part drives the real stack without a
// failure, so `npm run bench` keeps working on a fresh clone.
describe('npm run bench', () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'bench-'));
  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('runs every scenario beside its floor against the real stack, without an error, and writes the results', () => {
    const resultsFile = path.join(resultsDir, 'results.json');
    const small = ['--seconds', '1', '--connections', '4', '--booking-connections', '2', '--track-connections', '4', '--track-deliveries', '2'];
    const e2e = ['--deliveries', '3', '--e2e-seconds', '2', '--step-ms', '100', '--samples', '2'];
    const { code, output } = runBench(['--quick', ...small, ...e2e, '--results', resultsFile], 270_000);
    expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
    expect(output).toMatch(/\| POST \/partner\/quotes +\| 4 +\|/);
    expect(output).toContain(`Results in ${resultsFile}`);

    const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as Results;
    expect(results.scenarios.map((s) => s.id)).toEqual(['quotes', 'read', 'timings', 'tracking', 'e2e', 'booking']);
    const loads = results.scenarios.filter((s) => s.baseline);
    expect(loads.map((s) => s.id)).toEqual(['quotes', 'read', 'tracking', 'booking']);
    for (const s of loads) {
      expect({ id: s.id, errors: s.errors, floorErrors: s.baseline?.errors }).toEqual({ id: s.id, errors: 0, floorErrors: 0 });
      expect(s.rps).toBeGreaterThan(0);
      expect(s.baseline?.rps).toBeGreaterThan(0);
      expect(s.cpuMsPerRequest).toBeGreaterThan(0);
    }

    const end = results.scenarios.find((s) => s.id === 'e2e')?.e2e;
    expect(end).toMatchObject({ webhooksMissing: 0, failureCount: 0 });
    expect(end?.completed).toBeGreaterThanOrEqual(3);
    // Four callbacks a delivery (accepted, picked_up, in_transit, delivered), each timed.
    expect(end?.webhookLag.count).toBe(4 * (end?.completed ?? 0));
    expect(end?.acceptAnswerP50).toBeGreaterThan(0);

    const timings = results.scenarios.find((s) => s.id === 'timings')?.timings ?? {};
    for (const name of ['bookingToPendingRow', 'bookingToWorkflowRunning', 'bookingToWorkflowFoundRow', 'acceptToAccepted']) {
      expect({ name, count: timings[name]?.count }).toEqual({ name, count: 2 });
    }
    // Every callback the receiver took carried a valid signature, and none came twice.
    expect(results.webhooks.received).toBeGreaterThanOrEqual(4 * (end?.completed ?? 0));
    expect(results.webhooks).toMatchObject({ duplicates: 0, badSignatures: 0 });
    expect(results.peakMemory.api).toBeGreaterThan(0);
    expect(results.peakMemory.worker).toBeGreaterThan(0);
  }, 300_000);
});
