import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/**
 * How to run one of our TypeScript entry files as one process, as the image runs it: `node` on the
 * JavaScript `npm test` compiled once for the run (TEST_COMPILED_DIR, scripts/build.mjs), which
 * starts in a third of the time tsx takes to compile the program again in every process; with
 * tsx's loader where there is no compiled copy. Never the `tsx` command: it puts a parent in
 * between that relays signals and SIGKILLs the program (exit 143) when it does not answer a
 * SIGTERM within 30 ms, which a busy machine misses.
 */
export function ourProgram(entry: string): { command: string; args: string[]; cwd: string } {
  const compiled = process.env.TEST_COMPILED_DIR ? path.join(process.env.TEST_COMPILED_DIR, entry.replace(/\.ts$/, '.js')) : null;
  if (compiled && existsSync(compiled)) return { command: process.execPath, args: [compiled], cwd: root };
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
