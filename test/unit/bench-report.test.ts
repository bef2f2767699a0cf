import { renderReport } from '../../bench/lib/report.mjs';

const machine = { cpus: 2, cpuModel: 'AMD EPYC', memoryGb: 24, node: 'v20.20.2', loadBefore: [0.83, 2.06, 1.49], loadAfter: [2.57, 2.31, 1.6] };

const quotes = {
  id: 'quotes',
  name: 'POST /partner/quotes',
  connections: 32,
  rps: 1234.56,
  p50: 0.456,
  p90: 12.34,
  p99: 123.4,
  errors: 0,
  baselineName: 'SELECT 1 over HTTP',
  baseline: { rps: 2469.1, p99: 50, cpuMsPerRequest: 0.25 },
  cpuMsPerRequest: 1.26,
  memory: { api: 250.4, worker: 0 },
  cpu: { api: 0.5, postgres: 0.123, bench: 1.005 },
};
const booking = {
  id: 'booking',
  name: 'POST /partner/deliveries',
  connections: 16,
  rps: 75.4,
  p50: 202,
  p90: 277.5,
  p99: 99.96,
  errors: 3,
  baselineName: 'INSERT + workflow.start',
  // A floor that served nothing, and a cost that was not measured (null) or not given at all.
  baseline: { rps: 0, p99: null, cpuMsPerRequest: null },
  notes: 'the stack worked on for 8 s after the bookings stopped',
};
const e2e = {
  id: 'e2e',
  name: 'end to end, 50 deliveries in flight',
  connections: 50,
  errors: 1,
  memory: { api: 228.2, worker: 366.6 },
  cpu: { temporal: 0.4874, worker: 0.6561 },
  e2e: {
    deliveriesPerMinute: 510.6,
    completed: 100,
    webhookLag: { p50: 186.2, p90: 511, p99: 850.4, max: 995 },
    webhookLagByEvent: { 'delivery.accepted': { p50: 383, p99: 956 }, 'delivery.delivered': { p50: 0.5, p99: 2.25 } },
    webhooksMissing: 0,
    acceptAnswerP50: 407,
    acceptAnswerP99: 895,
    stepMs: 1000,
    acceptAfterMs: 0,
    failures: ['HTTP 500 on accept', 'timed out'],
    failureCount: 2,
  },
};
const timings = {
  id: 'timings',
  name: 'Lifecycle timings',
  timings: {
    bookingToPendingRow: { p50: 12.34, p90: 20, max: 150.2 },
    bookingToWorkflowRunning: { p50: 30, p90: 45.67, max: 80 },
    bookingToWorkflowFoundRow: { p50: 31, p90: 46, max: 81 },
    acceptToAccepted: { p50: 0.123, p90: null, max: 1 },
  },
};
const full = {
  machine,
  peakMemory: { api: 259.4, worker: 480.5 },
  sequentialScans: [{ table: 'deliveries', seq_tup_read: 13723, seq_scan: 232, idx_scan: 8958, rows: 381 }],
  scenarios: [e2e, quotes, booking, timings],
};

const lines = (report: string) => report.split('\n');
/** The trimmed cells of a table line. */
const cells = (line: string) => line.split('|').slice(1, -1).map((cell) => cell.trim());
/** The lines of the table whose header starts with `first`, header and separator included. */
const tableOf = (report: string, first: string) => {
  const all = lines(report);
  const start = all.findIndex((line) => line.startsWith(`| ${first} `));
  if (start < 0) throw new Error(`no table starting with ${first}`);
  const end = all.findIndex((line, i) => i > start && !line.startsWith('|'));
  return all.slice(start, end < 0 ? undefined : end);
};

describe('renderReport', () => {
  const report = renderReport(full);

  it('lists each scenario with a floor: whole rates, latencies to the precision their size needs, the ratio to the floor', () => {
    const table = tableOf(report, 'Scenario');
    expect(cells(table[0]!)).toEqual([
      'Scenario', 'conns', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'errors', 'floor', 'floor req/s', 'floor p99', 'ratio',
      'CPU ms/req', 'floor CPU ms/req', 'API MB', 'worker MB',
    ]);
    expect(table.slice(2).map(cells)).toEqual([
      ['POST /partner/quotes', '32', '1235', '0.46', '12.3', '123', '0', 'SELECT 1 over HTTP', '2469', '50', '50%', '1.3', '0.25', '250', '–'],
      ['POST /partner/deliveries', '16', '75', '202', '278', '100', '3', 'INSERT + workflow.start', '0', '–', '–', '–', '–', '–', '–'],
    ]);
  });

  it('pads every column to its widest cell, under a separator as wide as the header', () => {
    for (const first of ['Scenario', 'End to end', 'Lifecycle timings']) {
      const table = tableOf(report, first);
      expect(new Set(table.map((line) => line.length)).size).toBe(1);
      expect(table[1]).toMatch(/^(\|-+)+\|$/);
      // Each column's dashes span the cell and one space either side.
      expect(table[1]!.split('|').slice(1, -1).map((dashes) => dashes.length)).toEqual(
        table[0]!.split('|').slice(1, -1).map((cell) => cell.length),
      );
    }
    expect(tableOf(report, 'Scenario')[2]).toBe(
      '| POST /partner/quotes     | 32    | 1235  | 0.46   | 12.3   | 123    | 0      | SELECT 1 over HTTP      | 2469        | 50        | 50%   | 1.3        | 0.25             | 250    | –         |',
    );
  });

  it('adds a scenario’s notes under the table', () => {
    expect(lines(report)).toContain('  POST /partner/deliveries: the stack worked on for 8 s after the bookings stopped');
    expect(report).not.toContain('POST /partner/quotes: ');
  });

  it('gives the CPU of every scenario that measured it, in cores to two decimals, in the order they ran', () => {
    const all = lines(report);
    const from = all.indexOf('CPU while each scenario ran, in cores (2 = the whole machine):');
    expect(from).toBeGreaterThan(0);
    expect(all.slice(from + 1, from + 3)).toEqual([
      `  ${'end to end, 50 deliveries in flight'.padEnd(40)} temporal 0.49, worker 0.66`,
      `  ${'POST /partner/quotes'.padEnd(40)} api 0.50, postgres 0.12, bench 1.00`,
    ]);
    expect(all[from + 3]).toBe('');
  });

  it('gives the end-to-end run in a table of its own, with the lag by event and the failures', () => {
    const table = tableOf(report, 'End to end');
    expect(cells(table[0]!)).toEqual([
      'End to end', 'delivered/min', 'delivered', 'webhook lag p50', 'p90', 'p99', 'max', 'missing', 'accept answer p50/p99', 'errors', 'API MB', 'worker MB',
    ]);
    expect(table.slice(2).map(cells)).toEqual([
      ['50 in flight, 1000 ms between rider steps', '511', '100', '186 ms', '511 ms', '850 ms', '995 ms', '0', '407 / 895 ms', '1', '228', '367'],
    ]);
    expect(lines(report)).toContain('  webhook lag p50 / p99 by event: delivery.accepted 383 / 956 ms, delivery.delivered 0.5 / 2.3 ms');
    expect(lines(report)).toContain('  failures (2): HTTP 500 on accept | timed out');
  });

  it('says how long after the offer riders accept, when they wait', () => {
    const waiting = renderReport({ ...full, scenarios: [{ ...e2e, e2e: { ...e2e.e2e, acceptAfterMs: 2500, failureCount: 0 } }] });
    expect(cells(tableOf(waiting, 'End to end')[2]!)[0]).toBe('50 in flight, 1000 ms between rider steps, accepts 2500 ms after the offer');
    expect(waiting).not.toContain('failures');
  });

  it('gives the lifecycle timings as median, p90 and max of each span', () => {
    const table = tableOf(report, 'Lifecycle timings');
    expect(cells(table[0]!)).toEqual(['Lifecycle timings', 'median ms', 'p90 ms', 'max ms']);
    expect(table.slice(2).map(cells)).toEqual([
      ['booking request → pending row committed (answer)', '12.3', '20', '150'],
      ['booking request → workflow running (first task)', '30', '45.7', '80'],
      ['booking request → workflow found its row', '31', '46', '81'],
      ['accept request → `accepted` in the record', '0.12', '–', '1'],
    ]);
  });

  it('lists the tables read sequentially, and the machine, at the end', () => {
    const all = lines(report);
    expect(all).toContain('Tables read sequentially during the run (rows read / scans / index scans / rows):');
    expect(all).toContain('  deliveries: 13723 / 232 / 8958 / 381');
    expect(all[all.length - 1]).toBe(
      'Machine: 2 × AMD EPYC, 24 GB, Node v20.20.2; load average 0.83 2.06 1.49 before, 2.57 2.31 1.6 after. Peak RSS over the run: API 259 MB, worker 481 MB.',
    );
  });

  it('leaves out the parts a run did not have', () => {
    const only = renderReport({ machine, peakMemory: { api: null, worker: null }, sequentialScans: [], scenarios: [quotes] });
    expect(only).not.toContain('End to end');
    expect(only).not.toContain('median ms');
    expect(only).not.toContain('Tables read sequentially');
    expect(only).toContain('Peak RSS over the run: API – MB, worker – MB.');
    expect(tableOf(only, 'Scenario')).toHaveLength(3);
  });
});
