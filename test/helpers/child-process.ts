import type { ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/**
 * How to run one of our TypeScript entry files as one process: node with tsx's loader, as the
 * image runs `node dist/…`. The `tsx` command would put a parent in between that relays signals
 * and SIGKILLs the program (exit 143) when it does not answer a SIGTERM within 30 ms, which a
 * busy machine misses.
 */
export function ourProgram(entry: string): { command: string; args: string[]; cwd: string } {
  return { command: process.execPath, args: ['--import', 'tsx', entry], cwd: root };
}

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
