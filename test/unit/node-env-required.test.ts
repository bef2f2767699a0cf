import { spawn } from 'node:child_process';
import { exited, ourProgram } from '../helpers/child-process';

// `npm run api` and `npm run worker` started with no NODE_ENV: development's rules (private
// webhook addresses, per-process rate limits, the sandbox gateway) must not be taken by default.

const ENTRIES = { api: 'api/main.ts', worker: 'workers/main.ts' } as const;

/** The entry file run with only `env` (and PATH), to its end or until `timeoutMs` has passed. */
async function run(entry: string, env: Record<string, string>, timeoutMs: number) {
  const { command, args, cwd } = ourProgram(entry);
  const child = spawn(command, args, { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited(child);
  clearTimeout(timer);
  return { code: child.exitCode, stdout, stderr };
}

// Nothing listens on port 1: a process that got past its settings would fail there instead, later
// and with another message.
const NOWHERE = { DATABASE_URL: 'postgres://delivery@127.0.0.1:1/delivery', TEMPORAL_ADDRESS: '127.0.0.1:1', PORT: '0' };

describe.each(Object.entries(ENTRIES))('the %s process', (_name, entry) => {
  it.each([
    ['unset', {}],
    ['empty', { NODE_ENV: '' }],
  ])('refuses to start with NODE_ENV %s, in one line naming it and the values it takes', async (_how, nodeEnv) => {
    const ended = await run(entry, { ...NOWHERE, ...nodeEnv }, 30_000);
    expect(ended).toEqual({
      code: 78,
      stdout: '',
      stderr: expect.stringMatching(/^Invalid setting NODE_ENV: required: development, test or production \(npm start, npm test and the bench set it; the image sets production\)\n$/),
    });
  }, 40_000);

  it('names NODE_ENV first among the other problems, so one failed start lists them all', async () => {
    const ended = await run(entry, { ...NOWHERE, PAYMENT_GATEWAY: 'cash' }, 30_000);
    expect(ended.code).toBe(78);
    expect(ended.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^Invalid setting NODE_ENV: required/),
      expect.stringMatching(/^Invalid setting PAYMENT_GATEWAY: expected one of sandbox, paystack, got "cash"$/),
    ]);
  }, 40_000);
});
