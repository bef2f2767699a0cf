/**
 * Which rented number a new session of this caller gets. A provider tells us only who calls and
 * which number they dialled, so a caller may hold each pool number in one open session at most
 * (else the call could not tell which recipient it is for). Among the numbers the caller does not
 * hold, the one serving the fewest open sessions, so calls spread over the numbers' lines; ties
 * go to the earlier number in the pool. Null when the caller holds every number.
 */
export function choosePoolNumber(
  pool: readonly string[],
  usage: { heldByCaller: readonly string[]; openSessions: ReadonlyMap<string, number> },
): string | null {
  const held = new Set(usage.heldByCaller);
  let chosen: string | null = null;
  let fewest = Infinity;
  for (const number of pool) {
    if (held.has(number)) continue;
    const load = usage.openSessions.get(number) ?? 0;
    if (load < fewest) {
      chosen = number;
      fewest = load;
    }
  }
  return chosen;
}
