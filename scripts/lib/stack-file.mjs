// `.data/stack.json`: the stack `npm start` runs, for the next `npm start` and for `npm run ops`.
// It names the start's own pid, its addresses and every process it started, so a later start can
// tell a running stack from one that is stopping, and from one killed (`kill -9`) before it could
// stop what it started.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { waitUntil } from './wait-until.mjs';

/** The stack as written, or null when there is none (or the file is not readable as one). */
export function readStackFile(file) {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Written whole or not at all: a reader never sees half a file. */
export function writeStackFile(file, stack) {
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, JSON.stringify(stack), { mode: 0o600 });
  renameSync(partial, file);
}

export function removeStackFile(file) {
  rmSync(file, { force: true });
}

/** The kernel's start time of `pid` (clock ticks since boot) and its state, or null when it is gone. */
function procStat(pid) {
  try {
    // The command name (field 2) may hold spaces and parentheses: the fields after its last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], startTime: fields[19] };
  } catch {
    return null;
  }
}

/**
 * What identifies a process the stack started: its pid and when it began, so a pid the system
 * has since given to another program is never signalled. `group`: it leads a process group of its
 * own, signalled whole (tsx and the program under it, the Temporal CLI and its server).
 */
export function processStamp(name, pid, { group = true, signal = 'SIGTERM' } = {}) {
  return { name, pid, group, signal, startTime: procStat(pid)?.startTime ?? null };
}

/** Whether the stamped process still runs (a zombie has ended); without /proc, only whether the pid is alive. */
function stillRunning({ pid, startTime }) {
  const stat = procStat(pid);
  if (stat) return stat.state !== 'Z' && (startTime === null || stat.startTime === startTime);
  if (startTime !== null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

export function pidAlive(pid) {
  return stillRunning({ pid, startTime: null });
}

function signal({ pid, group }, name) {
  try {
    process.kill(group ? -pid : pid, name);
  } catch {
    /* already gone */
  }
}

/**
 * Stops the processes a killed start left running: each its own signal (the embedded PostgreSQL
 * takes SIGINT, its fast shutdown), all at once, then SIGKILL for any still there after `graceMs`.
 * Returns the names of those it stopped.
 */
export async function stopLeftovers(stack, graceMs = 10_000) {
  const left = (stack.processes ?? []).filter(stillRunning);
  for (const entry of left) signal(entry, entry.signal);
  await Promise.all(
    left.map(async (entry) => {
      const gone = (ms) => waitUntil(() => !stillRunning(entry), `the end of ${entry.name}`, ms, 100);
      await gone(graceMs).catch(() => {
        signal(entry, 'SIGKILL');
        return gone(5_000).catch(() => undefined);
      });
    }),
  );
  return left.map((entry) => entry.name);
}
