// CPU time of the stack's processes, read from /proc (Linux), so each phase can say where the
// machine's two cores went: Temporal, PostgreSQL, the API, the worker or the load generator.
import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/**
 * CPU seconds of one process and of its children that have ended and been reaped (utime, stime,
 * cutime, cstime): a child's time moves to its parent when it ends, so a tree's total stays whole
 * when a process in it exits, like a PostgreSQL backend whose client closed its connection.
 */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces; the fields after it are space-separated.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function descendants(pid) {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${all[i]}/task`)) {
        const children = readFileSync(`/proc/${all[i]}/task/${task}/children`, 'utf8').trim();
        if (children) all.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return all;
}

/** The PostgreSQL server whose data folder is `dataDir` (its postmaster), or null. */
export function postmasterOf(dataDir) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('postgres') && cmdline.includes(dataDir)) return Number(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return null;
}

/** CPU seconds of each named tree (a process, its live descendants and those they reaped). */
function cpuByTree(roots) {
  const out = {};
  for (const [name, pid] of Object.entries(roots)) {
    out[name] = pid ? descendants(pid).reduce((sum, p) => sum + cpuSeconds(p), 0) : 0;
  }
  return out;
}

/**
 * Starts a CPU account; `stop()` returns each tree's share of one core over the span (1 = a full
 * core). A child that ends meanwhile keeps its time in the tree through its parent (a PostgreSQL
 * backend that served a floor's connections and closed with it); one started meanwhile counts
 * from zero.
 * @template {string} Name
 * @param {Record<Name, number | null | undefined>} roots the root pid of each tree, by name
 * @returns {{ stop(): Record<Name | 'bench', number> }}
 */
export function accountCpu(roots) {
  const before = cpuByTree(roots);
  const self = process.cpuUsage();
  const started = performance.now();
  return {
    stop() {
      const after = cpuByTree(roots);
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(self);
      const shares = {};
      for (const [name, spent] of Object.entries(after)) shares[name] = Math.max(0, spent - before[name]) / seconds;
      shares.bench = (used.user + used.system) / 1e6 / seconds;
      return shares;
    },
  };
}

/** CPU milliseconds the servers (everything but the load generator) spent per request. */
export function costPerRequest(shares, seconds, requests) {
  if (!requests) return null;
  const servers = Object.entries(shares).filter(([name]) => name !== 'bench').reduce((sum, [, cores]) => sum + cores, 0);
  return (servers * seconds * 1000) / requests;
}

/**
 * Waits until the stack is idle (all its processes together under `below` of a core over a second),
 * at most `maxSeconds`: work a phase left queued (workflow tasks behind its bookings) is then not
 * done on the next phase's time. Returns how many seconds the stack stayed busy.
 */
export async function untilQuiet(account, { below = 0.15, maxSeconds = 60 } = {}) {
  const started = performance.now();
  for (;;) {
    const busySeconds = (performance.now() - started) / 1000;
    const span = account();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { bench: _bench, ...stack } = span.stop();
    const used = Object.values(stack).reduce((sum, share) => sum + share, 0);
    if (used < below || busySeconds >= maxSeconds) return busySeconds;
  }
}

/** Busy CPU seconds of the whole machine so far (Linux): what the stack used, and anything else running. */
export function machineBusySeconds() {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal: all but idle and iowait are busy.
  return (ticks.reduce((a, b) => a + b, 0) - ticks[3] - ticks[4]) / TICKS_PER_SECOND;
}
