// Children of `npm start` / `npm test`, stopped together on exit.
import { spawn } from 'node:child_process';
import { openSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { root } from './prepare.mjs';
import { stopProcess } from './stack.mjs';

export function startNodeProcess(name, script, env, logFile) {
  let stdio = 'inherit';
  if (logFile) {
    mkdirSync(path.dirname(logFile), { recursive: true });
    const out = openSync(logFile, 'a');
    stdio = ['ignore', out, out];
  }
  const child = spawn(path.join(root, 'node_modules', '.bin', 'tsx'), [script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio,
    detached: true,
  });
  child.name = name;
  // Detached children outlive their parent; make sure they stop with it.
  process.once('exit', () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  });
  return child;
}

export async function stopAll(children) {
  await Promise.all(children.filter(Boolean).map((child) => stopProcess(child)));
}
