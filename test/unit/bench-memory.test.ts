import { spawn } from 'node:child_process';
import { memoryOf, sampleMemory, serverPid } from '../../bench/lib/memory.mjs';

// The memory readings come from /proc, so these tests need Linux.
const onLinux = process.platform === 'linux' ? describe : describe.skip;
// 2^22 + 1 is above the largest pid Linux hands out.
const noSuchPid = 2 ** 22 + 1;
const megabytes = (bytes: number) => bytes / 1024 / 1024;

onLinux('memoryOf', () => {
  it('gives a process’s resident size now and its peak so far, in MB', async () => {
    // A child that took 64 MB and gave them back, then says what it holds and held at most.
    const script = `
      let held = Buffer.alloc(64 * 2 ** 20, 1);
      held = null;
      gc();
      setTimeout(() => {
        process.stdout.write(JSON.stringify({ rssMb: process.memoryUsage().rss / 2 ** 20, peakMb: process.resourceUsage().maxRSS / 1024 }));
      }, 100);
      process.stdin.on('end', () => process.exit(0)).resume();
    `;
    const child = spawn(process.execPath, ['--expose-gc', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const told = JSON.parse(await new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString())))) as {
        rssMb: number;
        peakMb: number;
      };
      const { rssMb, peakMb } = memoryOf(child.pid!);
      expect(Math.abs(rssMb! - told.rssMb)).toBeLessThan(2);
      expect(Math.abs(peakMb! - told.peakMb)).toBeLessThan(0.5);
      expect(peakMb! - rssMb!).toBeGreaterThan(40);
    } finally {
      child.stdin!.end();
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });

  it('knows nothing of a process that does not exist', () => {
    expect(memoryOf(noSuchPid)).toEqual({ rssMb: null, peakMb: null });
  });
});

onLinux('serverPid', () => {
  it('is the child a process started, or the process itself when it has none', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
      expect(serverPid(process.pid)).toBe(child.pid);
      expect(serverPid(child.pid)).toBe(child.pid);
      expect(serverPid(noSuchPid)).toBe(noSuchPid);
    } finally {
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});

onLinux('sampleMemory', () => {
  it('gives the largest resident size of each process while it sampled, and 0 for one it could not read', () => {
    const sampler = sampleMemory({ self: process.pid, gone: noSuchPid }, 10);
    const before = megabytes(process.memoryUsage().rss);
    // 64 MB, written so that it is resident.
    const held = Buffer.alloc(64 * 1024 * 1024, 1);
    const peaks = sampler.stop();
    expect(held.length).toBe(64 * 1024 * 1024);
    expect(Object.keys(peaks).sort()).toEqual(['gone', 'self']);
    expect(peaks.self).toBeGreaterThanOrEqual(before + 60);
    expect(peaks.gone).toBe(0);
  });
});
