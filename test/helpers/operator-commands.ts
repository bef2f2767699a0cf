import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ourProgram } from './child-process';

const run = promisify(execFile);

/**
 * Operator commands as an operator runs them in the image (`node dist/scripts/ops.js …`, the program
 * `npm run ops` runs), against the test database and Temporal server, with `settings` added to
 * their environment (a test's shortened RIDER_SILENT_MINUTES, say). ops.test.ts runs `npm run ops`
 * itself too.
 */
export function operatorCommands(settings: Record<string, string> = {}) {
  const env = { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS, ...settings };
  const { command, args: program, cwd } = ourProgram('scripts/ops.ts');
  const opsCommand = (args: string[]) => run(command, [...program, ...args], { env, cwd });
  return {
    /** Runs a command that must succeed, and parses its one line of JSON. */
    async ops(...args: string[]): Promise<any> {
      const { stdout } = await opsCommand(args);
      return JSON.parse(stdout);
    },
    /** Runs a command that must fail: its exit code and the one line it printed, parsed. */
    async opsRefusal(...args: string[]): Promise<{ code: number; output: any }> {
      const refused = await opsCommand(args).then(
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
