import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);
const root = path.resolve(__dirname, '..', '..');

// The machine's own Node, when it is older than the project's (Debian's or a preinstalled one).
const machineNode = ['/usr/bin/node', '/usr/local/bin/node'].find(
  (candidate) => existsSync(candidate) && major(spawnSync(candidate, ['-v'], { encoding: 'utf8' }).stdout) < 24,
);

describe('the runtime', () => {
  it('runs the tests on Node 24 LTS, the project’s own', () => {
    expect(major(process.versions.node)).toBeGreaterThanOrEqual(24);
  });

  (machineNode ? it : it.skip)('runs a script started on the machine’s older Node again on Node 24, with its arguments and exit code', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'runtime-'));
    try {
      const script = path.join(dir, 'which-node.mjs');
      const prepare = pathToFileURL(path.join(root, 'scripts', 'lib', 'prepare.mjs')).href;
      writeFileSync(
        script,
        `import { onProjectNode } from ${JSON.stringify(prepare)};\n` +
          `await onProjectNode();\n` +
          `console.log(process.versions.node, process.argv.slice(2).join(' '));\n` +
          `process.exit(7);\n`,
      );
      const result = spawnSync(machineNode as string, [script, 'a', 'b'], { encoding: 'utf8' });
      expect(result.status).toBe(7);
      const [version, args] = [result.stdout.trim().split(' ')[0], result.stdout.trim().split(' ').slice(1).join(' ')];
      expect(major(version as string)).toBeGreaterThanOrEqual(24);
      expect(args).toBe('a b');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
