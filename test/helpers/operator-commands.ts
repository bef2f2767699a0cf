import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The environment an operator's command runs in: the test database as DATABASE_URL. */
function operatorEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL, ...extra };
}

/** Runs an operator command exactly as an operator types it, and parses its one line of JSON. */
export async function ops(...args: string[]): Promise<any> {
  const { stdout } = await run('npm', ['run', 'ops', '--', ...args], { env: operatorEnv() });
  return JSON.parse(stdout);
}

/** Runs an operator command that must fail: its exit code and the one line it printed, parsed. */
export async function opsRefusal(...args: string[]): Promise<{ code: number; output: any }> {
  const refused = await run('npm', ['run', '--silent', 'ops', '--', ...args], { env: operatorEnv() }).then(
    () => {
      throw new Error(`ops ${args.join(' ')} succeeded`);
    },
    (error: { code: number; stdout: string }) => error,
  );
  return { code: refused.code, output: JSON.parse(refused.stdout) };
}
