// The API's command as the image runs it, read from the Dockerfile's CMD, so the processes started
// here (the topology, the upload memory test) run with the same node flags and cannot drift.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

/**
 * The node arguments of the Dockerfile's last CMD (flags, then the entry point under dist/), with
 * `dist/` replaced by `compiledDir` when given: `['--max-semi-space-size=4', '<dir>/api/main.js']`.
 */
export function imageApiArgs(compiledDir) {
  const cmd = [...readFileSync(path.join(root, 'Dockerfile'), 'utf8').matchAll(/^CMD (\[.*\])$/gm)].at(-1)?.[1];
  if (!cmd) throw new Error('The Dockerfile has no CMD in JSON form');
  const [program, ...args] = JSON.parse(cmd);
  if (program !== 'node') throw new Error(`The Dockerfile's CMD runs ${program}, not node`);
  return compiledDir ? args.map((arg) => (arg.startsWith('dist/') ? path.join(compiledDir, arg.slice('dist/'.length)) : arg)) : args;
}
