import { viewReads } from '../../api/metric-registry';

/**
 * How many times this process's API built the settled part of a view (its kept one did not match
 * the delivery's version), from the same counter /metrics shows. Tests read it before and after.
 */
export async function viewsBuilt(view: 'record' | 'tracking'): Promise<number> {
  const { values } = await viewReads.get();
  return values.filter((v) => v.labels.view === view && v.labels.settled === 'built').reduce((sum, v) => sum + v.value, 0);
}
