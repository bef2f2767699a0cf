import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Operator commands run exactly as an operator types them, against the test database and Temporal
 * server, with `settings` added to their environment (a test's shortened RIDER_SILENT_MINUTES, say).
 */
export function operatorCommands(settings: Record<string, string> = {}) {
  const env = { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS, ...settings };
  return {
    /** Runs a command that must succeed, and parses its one line of JSON. */
    async ops(...args: string[]): Promise<any> {
      const { stdout } = await run('npm', ['run', '--silent', 'ops', '--', ...args], { env });
      return JSON.parse(stdout);
    },
    /** Runs a command that must fail: its exit code and the one line it printed, parsed. */
    async opsRefusal(...args: string[]): Promise<{ code: number; output: any }> {
      const refused = await run('npm', ['run', '--silent', 'ops', '--', ...args], { env }).then(
        () => {
          throw new Error(`ops ${args.join(' ')} succeeded`);
        },
        (error: { code: number; stdout: string }) => error,
      );
      return { code: refused.code, output: JSON.parse(refused.stdout) };
    },
  };
}

export const { ops, opsRefusal } = operatorCommands();
