// Children in process groups of their own (a terminal's Ctrl-C does not reach them, and a whole
// group, tsx and the program under it, can be signalled at once) that still end with this process.
import { spawn } from 'node:child_process';

/**
 * Spawns `command` detached, in a process group of its own, and sends the group `onExitSignal`
 * when this process exits, whatever ends it: detached children would otherwise outlive it.
 */
export function spawnGroup(command, args, options = {}, onExitSignal = 'SIGTERM') {
  const child = spawn(command, args, { ...options, detached: true });
  process.once('exit', () => {
    try {
      process.kill(-child.pid, onExitSignal);
    } catch {
      /* already gone */
    }
  });
  return child;
}
