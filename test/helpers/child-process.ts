import type { ChildProcess } from 'node:child_process';

/** Resolves once the child is running; rejects when it could not be started. */
export function spawned(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => child.once('spawn', () => resolve()).once('error', reject));
}

/** The first chunk the child writes to its stdout (piped), as text. */
export function firstOutput(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8')));
    child.once('error', reject);
  });
}

/** Resolves once the child has exited, at once when it already has. */
export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

/** A pid above the largest Linux hands out (2^22), so no process has it. */
export const noSuchPid = 2 ** 22 + 1;

/** `describe` for tests that read /proc, which only Linux has; skipped elsewhere. */
export const describeOnLinux = process.platform === 'linux' ? describe : describe.skip;
