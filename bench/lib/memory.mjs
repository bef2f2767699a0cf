// Memory of the stack's processes, read from /proc (Linux): resident size now and its peak.
import { readFileSync } from 'node:fs';

function statusField(pid, field, file = 'status') {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Resident memory in MB now, and the peak since the process started (VmHWM). */
export function memoryOf(pid) {
  return { rssMb: statusField(pid, 'VmRSS'), peakMb: statusField(pid, 'VmHWM') };
}

/**
 * `tsx file.ts` runs the file in a child `node` process; the server is that child. Returns the
 * child's pid, or the pid itself when it has no child.
 */
export function serverPid(pid) {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return children.length ? Number(children[0]) : pid;
  } catch {
    return pid;
  }
}

/** Samples the resident size of named processes every `everyMs` until stopped; returns each peak in MB. */
export function sampleMemory(pids, everyMs = 200) {
  const peaks = Object.fromEntries(Object.keys(pids).map((name) => [name, 0]));
  const take = () => {
    for (const [name, pid] of Object.entries(pids)) {
      const { rssMb } = memoryOf(pid);
      if (rssMb !== null && rssMb > peaks[name]) peaks[name] = rssMb;
    }
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return peaks;
    },
  };
}

/**
 * Each named process's resident memory in MB now; PostgreSQL (`postgres`) as the sum of its
 * processes' proportional sets, since its backends share their buffers.
 */
export function memoryNow(pids) {
  const children = (pid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  const out = {};
  for (const [name, pid] of Object.entries(pids)) {
    if (!pid) continue;
    out[name] =
      name === 'postgres'
        ? [pid, ...children(pid)].reduce((sum, p) => sum + (statusField(p, 'Pss', 'smaps_rollup') ?? 0), 0)
        : (memoryOf(pid).rssMb ?? 0);
  }
  return out;
}
