// The bench's helper programs (seeding commands, the booking floor) each print one JSON line as
// their last output: this runs one to its end and resolves with that line, parsed.
import { spawn } from 'node:child_process';

/** Runs `command args` in `cwd` with `env` added; rejects, naming `what`, with its stderr when it fails. */
export function jsonLineOf(command, args, { cwd, env = {} }, what) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${what} failed (${code}):\n${err}`));
      resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}
