import { spawnSync } from 'node:child_process';

/**
 * Runs `node scripts/bench.mjs` with `args` to its end: its exit code and everything it printed.
 * A run that hangs is stopped at `timeoutMs` with SIGTERM, on which the bench stops its stack.
 */
export function runBench(args: string[], timeoutMs: number): { code: number | null; output: string } {
  // Without jest's NODE_ENV, as from a terminal: the bench sets it for the API and worker it starts.
  const { NODE_ENV: _jestSetsIt, ...terminal } = process.env;
  const run = spawnSync('node', ['scripts/bench.mjs', ...args], {
    env: { ...terminal, TEMPORAL_CLI: process.env.TEST_TEMPORAL_CLI },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { code: run.status, output: `${run.stdout}${run.stderr}${run.error ? `\n${run.error.message}` : ''}` };
}
