// The city scenario's tables, as printed at the end of `npm run bench -- --only city`.
import { round } from './stats.mjs';

const ms = (value) => (value === null || value === undefined ? '–' : value >= 100 ? String(Math.round(value)) : String(round(value, 1)));
const PASS = (ok) => (ok ? 'yes' : 'NO');

/**
 * The targets of the city issue: every endpoint's p99 under 100 ms but the rider steps' under
 * 250 ms (each waits for a workflow update), webhook lag p99 under 1 s, no errors.
 */
export const CITY_TARGETS = { endpointP99Ms: 100, riderStepP99Ms: 250, webhookLagP99Ms: 1000 };

/** The rider app's steps of a job: each waits for a workflow update, so its latency is Temporal's. */
export const isRiderStep = (endpoint) => endpoint.startsWith('POST /rider/deliveries/');

/** The p99 an endpoint's answers must stay under. */
export const p99TargetOf = (endpoint) => (isRiderStep(endpoint) ? CITY_TARGETS.riderStepP99Ms : CITY_TARGETS.endpointP99Ms);

export function renderCity(scenario, table) {
  const c = scenario.city;
  const out = [];
  for (const step of c.steps ?? [c]) out.push(renderWindow(step, `${scenario.name.replace(/^city: \d+ riders/, `city: ${step.riders} riders`)}`, table), '');
  if (c.steps) {
    out.push(
      table(
        ['riders online', 'pings/s', 'worst p99 ms (endpoint)', 'worst p99 ms beside rider steps', 'webhook lag p99 ms', 'errors', 'machine cores', 'meets targets', 'beside rider steps'],
        c.steps.map((step) => {
          const byP99 = Object.entries(step.endpoints).sort(([, a], [, b]) => b.p99 - a.p99);
          const [name, worst] = byP99[0] ?? ['–', {}];
          const [other, worstOther] = byP99.find(([n]) => !isRiderStep(n)) ?? ['–', {}];
          return [
            step.riders,
            round(step.endpoints['POST /rider/location']?.rps ?? 0, 0),
            `${ms(worst.p99)} (${name})`,
            `${ms(worstOther.p99)} (${other})`,
            ms(step.webhookLag.p99),
            step.errorCount,
            round(step.machineBusyCores, 2),
            PASS(step.meetsTargets),
            PASS(step.meetsTargetsBesideSteps),
          ];
        }),
      ),
    );
  }
  const said = (riders) => (riders === null ? 'no rider count measured' : `${riders} riders online`);
  out.push(`  capacity: ${said(c.capacity)} met every target; ${said(c.capacityBesideSteps)} every target beside the rider steps' p99`);
  return out.join('\n');
}

function renderWindow(c, title, table) {
  const out = [];
  const endpoints = Object.entries(c.endpoints).sort(([, a], [, b]) => b.rps - a.rps);
  out.push(
    table(
      [`${title}, ${Math.round(c.seconds)} s`, 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'p99 < 100 ms (steps 250)'],
      endpoints.map(([name, e]) => [name, round(e.rps, 1), ms(e.p50), ms(e.p99), ms(e.max), e.errors, PASS(e.p99 < p99TargetOf(name) && e.errors === 0)]),
    ),
  );
  const lag = c.webhookLag;
  out.push(
    `  webhook lag p50 ${ms(lag.p50)} ms, p99 ${ms(lag.p99)} ms, max ${ms(lag.max)} ms over ${lag.count} callbacks; missing ${c.webhooksMissing}` +
      ` (p99 < 1 s: ${PASS(lag.p99 !== null && lag.p99 < CITY_TARGETS.webhookLagP99Ms && c.webhooksMissing === 0)})`,
  );
  out.push(
    `  in flight ${Math.round(c.inFlight.min)}–${Math.round(c.inFlight.max)} (mean ${Math.round(c.inFlight.mean)}); delivered in the window ${c.completedInWindow}` +
      ` (${round(c.deliveriesPerSecond, 2)}/s); no rider free ${c.noRiderFree}`,
  );
  const errored = endpoints.filter(([, e]) => e.errors > 0).map(([name, e]) => `${name} ${JSON.stringify(e.statuses)}`);
  if (errored.length) out.push(`  errors by status: ${errored.join('; ')}`);
  if (c.failures.length) out.push(`  failures: ${c.failures.slice(0, 5).join(' | ')}`);
  const stack = Object.values(c.cpu ?? {}).reduce((a, b) => a + b, 0);
  out.push(
    `  CPU in cores: ${Object.entries(c.cpu ?? {}).filter(([, v]) => v > 0.005).map(([name, v]) => `${name} ${v.toFixed(2)}`).join(', ')}` +
      `; the machine ${round(c.machineBusyCores, 2)} of 2 (other work ${round(Math.max(0, c.machineBusyCores - stack), 2)})`,
  );
  out.push(`  load generator: requests left p50 ${ms(c.generatorSendLag.p50)} ms, p99 ${ms(c.generatorSendLag.p99)} ms after they were due`);
  const trend = (trends) =>
    Object.entries(trends)
      .map(([name, t]) => `${name} ${t.firstMb} → ${t.lastMb} (${t.growthPct >= 0 ? '+' : ''}${t.growthPct}%), ${t.peakMb}`)
      .join('; ');
  out.push(`  memory (MB, first minute → last minute, peak): ${trend(c.memoryTrend)}`);
  if (c.liveHeapTrend) out.push(`  after a full collection, live heap and external memory (MB, first minute → last minute, peak): ${trend(c.liveHeapTrend)}`);
  const p = c.perDelivery;
  out.push(
    `  a delivery: ${p.historyEvents === null ? '–' : round(p.historyEvents, 1)} history events, Temporal CPU ${ms(p.temporalCpuMs)} ms, worker CPU ${ms(p.workerCpuMs)} ms;` +
      ` PostgreSQL over the window ${Math.round(c.postgresPerSecond.transactions)} transactions/s and ${Math.round(c.postgresPerSecond.rowsWritten)} rows written/s` +
      ` (${p.postgresTransactions === null ? '–' : Math.round(p.postgresTransactions)} transactions and ${p.postgresRowsWritten === null ? '–' : Math.round(p.postgresRowsWritten)} rows a delivered delivery, pings and polls included)`,
  );
  if (c.workerCache) {
    const k = c.workerCache;
    out.push(`  the worker's workflow cache: ${k.size} held at the end; over the window ${k.hits} hits, ${k.misses} misses (each a whole history replayed), ${k.forcedEvictions} forced evictions`);
  }
  if (c.unitCosts) {
    out.push("  per unit, each alone at 200/s after the window (the API's CPU ms a request, beside its floor's):");
    for (const [name, u] of Object.entries(c.unitCosts)) {
      out.push(`    ${name}: ${round(u.apiMs, 3)} ms; ${u.floor} ${round(u.floorMs, 3)} ms (${u.ratio === null ? '–' : `${round(u.ratio, 1)}×`})${u.failed ? `, ${u.failed} failed` : ''}`);
    }
  }
  if (c.postgresStatements?.length) {
    out.push('  PostgreSQL by statement (calls/s, mean ms, cores):');
    for (const st of c.postgresStatements.slice(0, 8)) out.push(`    ${round(st.perSecond, 1)}/s ${round(st.meanMs, 2)} ms ${round(st.cores, 3)}  ${st.query}`);
  }
  return out.join('\n');
}
