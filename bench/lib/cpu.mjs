// CPU time of the stack's processes, read from /proc (Linux), so each phase can say where the
// machine's two cores went: Temporal, PostgreSQL, the API, the worker or the load generator.
import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** utime + stime of one process, in seconds. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces; the fields after it are space-separated.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
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

/**
 * Total CPU seconds of each named process tree (a process and all its descendants; ended
 * children, such as finished PostgreSQL backends, are no longer counted).
 */
export function cpuOf(roots) {
  const out = {};
  for (const [name, pid] of Object.entries(roots)) {
    out[name] = pid ? descendants(pid).reduce((sum, p) => sum + cpuSeconds(p), 0) : 0;
  }
  return out;
}

/** Starts a CPU account; `stop()` returns each tree's share of one core over the span (1 = a full core). */
export function accountCpu(roots) {
  const before = cpuOf(roots);
  const self = process.cpuUsage();
  const started = performance.now();
  return {
    stop() {
      const after = cpuOf(roots);
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(self);
      const shares = Object.fromEntries(Object.keys(roots).map((name) => [name, Math.max(0, after[name] - before[name]) / seconds]));
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
