// The growth scenario's table (bench/scenarios/growth.mjs): each hot path's latency on the almost
// empty database and on the grown one, the p99 ratio against the issue's bar, and what each plan shows.
import { round } from './stats.mjs';

const ms = (value) =>
  value === null || value === undefined ? '–' : value >= 100 ? String(Math.round(value)) : value >= 1 ? String(round(value, 1)) : String(round(value, 2));
const thousands = (value) => (value === null || value === undefined ? '–' : Number(value).toLocaleString('en-GB'));

/** `table(headers, rows)` is report.mjs's Markdown table; `explain` prints every plan after the table. */
export function renderGrowth(scenario, table, { explain = false } = {}) {
  const g = scenario.growth;
  const out = [];
  const s = g.seeding;
  out.push(
    `Cost as the data grows: ${thousands(g.counts.before.deliveries)} deliveries before, ${thousands(g.counts.after.deliveries)} after` +
      ` (${g.counts.after.size}); seeding ${thousands(s.deliveries)} deliveries, ${thousands(s.partners)} partners and ${thousands(s.riders)} riders took ${s.seconds} s.`,
  );
  out.push(
    table(
      ['Path', 'req/s', 'n', 'p50 before', 'p99 before', 'p50 after', 'p99 after', 'p99 after/before', `≤ ${g.limit}×`, 'errors', 'PostgreSQL CPU a request', 'plan (grown database)'],
      g.paths.map((p) => [
        p.name,
        p.rate,
        `${p.before.count}/${p.after.count}`,
        `${ms(p.before.p50)} ms`,
        `${ms(p.before.p99)} ms`,
        `${ms(p.after.p50)} ms`,
        `${ms(p.after.p99)} ms`,
        p.ratio === null ? '–' : `${round(p.ratio, 2)}×`,
        p.withinLimit ? 'pass' : 'FAIL',
        p.before.errors + p.after.errors,
        `${ms(p.before.dbMsPerRequest)} → ${ms(p.after.dbMsPerRequest)} ms`,
        p.findings.length ? p.findings.join('; ') : 'index only',
      ]),
    ),
  );
  const dispatch = g.paths.find((p) => p.id === 'dispatch');
  if (dispatch) out.push(`  dispatch offered each job to ${dispatch.before.offersPerCall} riders before, ${dispatch.after.offersPerCall} after (online riders within 3 km of the pickup).`);
  out.push(`  seeding steps (s): ${Object.entries(s.steps).map(([step, seconds]) => `${step} ${seconds}`).join(', ')}`);
  const rest = (phase) => Object.entries(g.settled[phase]).map(([step, seconds]) => `${step} ${seconds}`).join(', ');
  out.push(`  brought to rest before measuring (s): before ${rest('before')}; after ${rest('after')}`);
  out.push(
    `  made: ${['deliveries', 'events', 'webhookEvents', 'offers', 'stops', 'debits', 'riders', 'roboRiders', 'partners', 'apiKeys'].map((k) => `${k} ${thousands(s[k])}`).join(', ')}`,
  );
  for (const p of g.paths.filter((x) => x.before.errors + x.after.errors > 0)) {
    out.push(`  ${p.name} failures: ${JSON.stringify({ before: p.before.failures, after: p.after.failures })}`);
  }
  if (explain) {
    for (const [phase, plans] of Object.entries(g.plans)) {
      for (const [id, statements] of Object.entries(plans)) {
        for (const st of statements) {
          out.push('', `--- ${id}, ${phase}: ${st.statement}`, st.error ?? st.plan);
        }
      }
    }
  }
  return out.join('\n');
}
