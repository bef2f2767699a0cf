// The worker's Prometheus endpoint as totals: each metric's value summed over its labels, so a
// scenario can read what the worker did between two scrapes (tasks, local activities, its cache).

/**
 * Every sample line's value, summed by metric name over labels, of the worker at `url`; empty when
 * it does not answer. With `byLabel`, samples that carry that label are kept apart under
 * `name{label="value"}`.
 */
export async function workerTotals(url, { byLabel } = {}) {
  const totals = new Map();
  let text = '';
  try {
    text = await (await fetch(url)).text();
  } catch {
    return totals;
  }
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const label = byLabel ? new RegExp(`(?:^|,)${byLabel}="([^"]*)"`).exec(match[2] ?? '')?.[1] : undefined;
    const name = label === undefined ? match[1] : `${match[1]}{${byLabel}="${label}"}`;
    totals.set(name, (totals.get(name) ?? 0) + Number(match[3]));
  }
  return totals;
}

/** The first metric whose name starts with `prefix` and ends with `suffix` (a histogram's unit may sit between). */
export function totalOf(totals, prefix, suffix = '') {
  for (const [name, value] of totals) if (name.startsWith(prefix) && name.endsWith(suffix)) return value;
  return 0;
}

/** What the worker's sticky cache did between two scrapes: hits, misses (each a whole history replayed), evictions, its size after. */
export function stickyCacheBetween(before, after) {
  const delta = (prefix, suffix) => totalOf(after, prefix, suffix) - totalOf(before, prefix, suffix);
  return {
    hits: delta('temporal_sticky_cache_hit'),
    misses: delta('temporal_sticky_cache_miss'),
    forcedEvictions: delta('temporal_sticky_cache_total_forced_eviction'),
    size: totalOf(after, 'temporal_sticky_cache_size'),
  };
}
