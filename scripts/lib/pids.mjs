// Children of `npm start` / `npm test`, stopped together on exit.
import { spawnGroup } from './process-group.mjs';
import { openSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { root } from './prepare.mjs';
import { stopProcess } from './stack.mjs';

/**
 * Starts one of the service's programs: a TypeScript entry point (`'api/main.ts'`) through tsx,
 * as in development, or compiled JavaScript given as node's arguments
 * (`['--max-semi-space-size=4', 'dist/api/main.js']`), as production runs it.
 */
export function startNodeProcess(name, script, env, logFile) {
  let stdio = 'inherit';
  if (logFile) {
    mkdirSync(path.dirname(logFile), { recursive: true });
    const out = openSync(logFile, 'a');
    stdio = ['ignore', out, out];
  }
  const [command, args] = Array.isArray(script) ? [process.execPath, script] : [path.join(root, 'node_modules', '.bin', 'tsx'), [script]];
  const child = spawnGroup(command, args, { cwd: root, env: { ...process.env, ...env }, stdio });
  child.name = name;
  return child;
}

export async function stopAll(children) {
  await Promise.all(children.filter(Boolean).map((child) => stopProcess(child)));
}
