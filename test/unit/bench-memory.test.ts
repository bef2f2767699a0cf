import { spawn } from 'node:child_process';
import { memoryOf, sampleMemory, serverPid } from '../../bench/lib/memory.mjs';
import { describeOnLinux, exited, firstOutput, noSuchPid } from '../helpers/child-process';


describeOnLinux('memoryOf', () => {
  it('gives a process’s resident size now and its peak so far, in MB', async () => {
    // A child that took 64 MB and gave them back, then says what it held then and holds now. Its
    // own getrusage peak is no reference: Linux carries the parent's peak over to a spawned child.
    const script = `
      let held = Buffer.alloc(64 * 2 ** 20, 1);
      const heldMb = process.memoryUsage().rss / 2 ** 20;
      held = null;
      gc();
      setTimeout(() => {
        process.stdout.write(JSON.stringify({ rssMb: process.memoryUsage().rss / 2 ** 20, heldMb }));
      }, 100);
      process.stdin.on('end', () => process.exit(0)).resume();
    `;
    const child = spawn(process.execPath, ['--expose-gc', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const told = JSON.parse(await firstOutput(child)) as { rssMb: number; heldMb: number };
      const { rssMb, peakMb } = memoryOf(child.pid!);
      expect(Math.abs(rssMb! - told.rssMb)).toBeLessThan(2);
      // The peak is at least what the child held with the 64 MB, and not much more.
      expect(peakMb!).toBeGreaterThanOrEqual(told.heldMb - 0.1);
      expect(peakMb!).toBeLessThan(told.heldMb + 16);
      expect(peakMb! - rssMb!).toBeGreaterThan(40);
    } finally {
      child.stdin!.end();
      await exited(child);
    }
  });

  it('knows nothing of a process that does not exist', () => {
    expect(memoryOf(noSuchPid)).toEqual({ rssMb: null, peakMb: null });
  });
});

describeOnLinux('serverPid', () => {
  it('is the child a process started, or the process itself when it has none', async () => {
    // A parent of its own that starts one child and says its pid (the test process, run in band,
    // may have children of other tests).
    const parent = spawn(process.execPath, ['-e', `
      const child = require('node:child_process').spawn('sleep', ['30'], { stdio: 'ignore' });
      child.once('spawn', () => process.stdout.write(String(child.pid)));
      process.stdin.on('end', () => { child.kill(); process.exit(0); }).resume();
    `], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const childPid = Number(await firstOutput(parent));
      expect(serverPid(parent.pid!)).toBe(childPid);
      expect(serverPid(childPid)).toBe(childPid);
      expect(serverPid(noSuchPid)).toBe(noSuchPid);
    } finally {
      parent.stdin!.end();
      await exited(parent);
    }
  });
});

describeOnLinux('sampleMemory', () => {
  it('gives the largest resident size of each process while it sampled, and 0 for one it could not read', async () => {
    // A fresh child that takes 64 MB, says so, and holds them: this test's own jest worker may be
    // large and reuse freed pages, so its resident size need not grow with an allocation.
    const child = spawn(process.execPath, ['-e', `
      const before = process.memoryUsage().rss / 2 ** 20;
      const held = Buffer.alloc(64 * 2 ** 20, 1);
      process.stdout.write(JSON.stringify({ before, length: held.length }));
      process.stdin.on('end', () => process.exit(0)).resume();
    `], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const sampler = sampleMemory({ child: child.pid!, gone: noSuchPid }, 10);
      const told = JSON.parse(await firstOutput(child)) as { before: number; length: number };
      await new Promise((resolve) => setTimeout(resolve, 50));
      const peaks = sampler.stop();
      expect(told.length).toBe(64 * 1024 * 1024);
      expect(Object.keys(peaks).sort()).toEqual(['child', 'gone']);
      expect(peaks.child).toBeGreaterThanOrEqual(told.before + 60);
      expect(peaks.gone).toBe(0);
    } finally {
      child.stdin!.end();
      await exited(child);
    }
  });
});
