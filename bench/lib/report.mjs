// The results table, as printed at the end of `npm run bench`.
import { renderCity } from './city-report.mjs';
import { renderGrowth } from './growth-report.mjs';
import { round } from './stats.mjs';

const ms = (value) =>
  value === null || value === undefined ? '–' : value >= 100 ? String(Math.round(value)) : value >= 1 ? String(round(value, 1)) : String(round(value, 2));
const num = (value) => (value === null || value === undefined ? '–' : String(Math.round(value)));
const mb = (value) => (value ? String(Math.round(value)) : '–');

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

export function renderReport(results) {
  const out = [];
  const api = results.scenarios.filter((s) => s.baseline);
  out.push(
    table(
      ['Scenario', 'conns', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'errors', 'floor', 'floor req/s', 'floor p99', 'ratio', 'CPU ms/req', 'floor CPU ms/req', 'API MB', 'worker MB'],
      api.map((s) => [
        s.name,
        s.connections,
        num(s.rps),
        ms(s.p50),
        ms(s.p90),
        ms(s.p99),
        s.errors,
        s.baselineName,
        num(s.baseline.rps),
        ms(s.baseline.p99),
        s.baseline.rps ? `${Math.round((100 * s.rps) / s.baseline.rps)}%` : '–',
        ms(s.cpuMsPerRequest),
        ms(s.baseline.cpuMsPerRequest),
        mb(s.memory?.api),
        mb(s.memory?.worker),
      ]),
    ),
  );
  for (const s of api) if (s.notes) out.push(`  ${s.name}: ${s.notes}`);
  out.push('');
  out.push('CPU while each scenario ran, in cores (2 = the whole machine):');
  for (const s of results.scenarios.filter((x) => x.cpu)) {
    out.push(`  ${s.name.padEnd(40)} ${Object.entries(s.cpu).map(([name, cores]) => `${name} ${cores.toFixed(2)}`).join(', ')}`);
  }

  const e2e = results.scenarios.find((s) => s.e2e);
  if (e2e) {
    const e = e2e.e2e;
    out.push('');
    out.push(
      table(
        ['End to end', 'delivered/min', 'delivered', 'webhook lag p50', 'p90', 'p99', 'max', 'missing', 'accept answer p50/p99', 'errors', 'API MB', 'worker MB'],
        [
          [
            `${e2e.connections} in flight, ${e.stepMs} ms between rider steps${e.acceptAfterMs ? `, accepts ${e.acceptAfterMs} ms after the offer` : ''}`,
            num(e.deliveriesPerMinute),
            e.completed,
            `${ms(e.webhookLag.p50)} ms`,
            `${ms(e.webhookLag.p90)} ms`,
            `${ms(e.webhookLag.p99)} ms`,
            `${ms(e.webhookLag.max)} ms`,
            e.webhooksMissing,
            `${ms(e.acceptAnswerP50)} / ${ms(e.acceptAnswerP99)} ms`,
            e2e.errors,
            mb(e2e.memory?.api),
            mb(e2e.memory?.worker),
          ],
        ],
      ),
    );
    if (e.webhookLagByEvent) {
      const byEvent = Object.entries(e.webhookLagByEvent).map(([event, lag]) => `${event} ${ms(lag.p50)} / ${ms(lag.p99)} ms`);
      out.push(`  webhook lag p50 / p99 by event: ${byEvent.join(', ')}`);
    }
    if (e.cpuMsPerDelivery != null) {
      out.push(`  CPU a delivery (Temporal, PostgreSQL, API and worker): ${ms(e.cpuMsPerDelivery)} ms; Temporal: ${results.options.temporal === 'server' ? 'the real server on PostgreSQL' : 'the CLI dev server'}`);
    }
    if (e.failureCount) out.push(`  failures (${e.failureCount}): ${e.failures.join(' | ')}`);
  }

  const city = results.scenarios.find((s) => s.city);
  if (city) out.push('', renderCity(city, table));

  const growth = results.scenarios.find((s) => s.growth);
  if (growth) out.push('', renderGrowth(growth, table, { explain: results.options.explain }));

  const timings = results.scenarios.find((s) => s.timings);
  if (timings) {
    const t = timings.timings;
    out.push('');
    out.push(
      table(
        [timings.name, 'median ms', 'p90 ms', 'max ms'],
        [
          ['booking request → pending row committed (answer)', ms(t.bookingToPendingRow.p50), ms(t.bookingToPendingRow.p90), ms(t.bookingToPendingRow.max)],
          ['booking request → workflow running (first task)', ms(t.bookingToWorkflowRunning.p50), ms(t.bookingToWorkflowRunning.p90), ms(t.bookingToWorkflowRunning.max)],
          ['booking request → workflow found its row', ms(t.bookingToWorkflowFoundRow.p50), ms(t.bookingToWorkflowFoundRow.p90), ms(t.bookingToWorkflowFoundRow.max)],
          ['accept request → `accepted` in the record', ms(t.acceptToAccepted.p50), ms(t.acceptToAccepted.p90), ms(t.acceptToAccepted.max)],
        ],
      ),
    );
    const h = timings.pickupHops;
    if (h && h.total !== null && h.total !== undefined) {
      out.push('');
      out.push(
        table(
          ['a pickup, hop by hop (median of the samples)', 'ms'],
          [
            ['the rider\'s request, sent → answered', ms(h.total)],
            ['  API: the job and the rider read (Server-Timing read)', ms(h.apiRead)],
            ['  API: the workflow update, sent → answered (update)', ms(h.apiUpdate)],
            ['    worker: the workflow task, scheduled → started', ms(h.taskScheduleToStart)],
            ['    worker: the workflow task, run (mean of the tasks meanwhile)', ms(h.taskExecution)],
            ['    worker: the local activity that records the change', ms(h.localActivity)],
            ['      its read of the delivery', ms(h.read)],
            ['      its ETA', ms(h.eta)],
            ['      its write to Postgres', ms(h.write)],
            ['  API: the job view, when read after the update (view)', ms(h.apiView)],
            ['workflow tasks run meanwhile', ms(h.workflowTasks)],
          ],
        ),
      );
    }
  }
  if (results.sequentialScans?.length) {
    out.push('');
    out.push('Tables read sequentially during the run (rows read / scans / index scans / rows):');
    for (const t of results.sequentialScans) out.push(`  ${t.table}: ${t.seq_tup_read} / ${t.seq_scan} / ${t.idx_scan} / ${t.rows}`);
  }
  const m = results.machine;
  out.push('');
  out.push(
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB, Node ${m.node}; load average ${m.loadBefore.join(' ')} before, ${m.loadAfter.join(' ')} after.` +
      ` Peak RSS over the run: API ${mb(results.peakMemory.api)} MB, worker ${mb(results.peakMemory.worker)} MB.`,
  );
  return out.join('\n');
}
