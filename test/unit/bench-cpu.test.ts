import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { accountCpu, costPerRequest, postmasterOf, untilQuiet } from '../../bench/lib/cpu.mjs';
import { describeOnLinux, exited, firstOutput, noSuchPid, spawned } from '../helpers/child-process';
import { eventually } from '../helpers/http';

/**
 * A child node process that burns `burnMs` of CPU, says how much CPU it used in all (its start-up
 * included), then idles until its stdin closes and exits.
 */
const burner = (burnMs: number) => `
  const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  let x = 0;
  while (used() < ${burnMs}) for (let i = 0; i < 1e5; i++) x += Math.sqrt(i);
  process.stdin.on('end', () => process.exit(0)).resume();
  process.stdout.write(JSON.stringify({ cpuMs: used(), x: x > 0 }));
`;

describeOnLinux('accountCpu', () => {
  it('counts a child’s CPU while it runs, and keeps it in the tree through its parent after the child ended', async () => {
    // The tree's root is a shell that runs the burner, then sleeps: the shell's own CPU is next to
    // nothing, so the tree's time is the burner's, alive and, once the shell has reaped it, ended.
    // (The test process is no root: run in band, it may hold other tests' processes and threads.)
    const shell = spawn('sh', ['-c', '"$0" -e "$1"; exec sleep 30', process.execPath, burner(300)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const account = accountCpu({ tree: shell.pid });
    const opened = performance.now();
    try {
      const { cpuMs } = JSON.parse(await firstOutput(shell)) as { cpuMs: number };
      expect(cpuMs).toBeGreaterThanOrEqual(300);

      const live = account.stop();
      const liveSeconds = (performance.now() - opened) / 1000;
      expect(Object.keys(live).sort()).toEqual(['bench', 'tree']);
      expect(live.tree * liveSeconds).toBeCloseTo(cpuMs / 1000, 1);

      // The burner exits once its stdin closes; the shell goes on, as `sleep`, with its time.
      shell.stdin!.end();
      await eventually(async () => !readFileSync(`/proc/${shell.pid}/cmdline`, 'utf8').includes(process.execPath), 5_000, 'the burner to end');

      const ended = account.stop();
      const endedSeconds = (performance.now() - opened) / 1000;
      // The burner's exit (after its report) is counted too: up to about a tenth of a second more
      // on a loaded machine, never less than what it reported.
      const endedCpuSeconds = ended.tree * endedSeconds;
      expect(endedCpuSeconds).toBeGreaterThan(cpuMs / 1000 - 0.05);
      expect(endedCpuSeconds).toBeLessThan(cpuMs / 1000 + 0.15);
    } finally {
      shell.kill();
      await exited(shell);
    }
  });

  it('counts nothing for a tree with no root process, and still counts the bench itself', () => {
    const account = accountCpu({ none: 0, unknown: null, gone: noSuchPid });
    const opened = performance.now();
    const before = process.cpuUsage();
    // Busy until this process has spent 200 ms of CPU, however slowly a loaded machine lets it.
    let x = 0;
    const spent = () => {
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1e6;
    };
    while (spent() < 0.2) for (let i = 0; i < 1e4; i++) x += Math.sqrt(i);
    const burned = spent();
    const shares = account.stop();
    const seconds = (performance.now() - opened) / 1000;
    expect(x).toBeGreaterThan(0);
    expect(shares).toEqual({ none: 0, unknown: 0, gone: 0, bench: expect.any(Number) });
    // The bench's share over the span, times the span, is the CPU the loop burned (to 50 ms).
    expect(shares.bench * seconds).toBeCloseTo(burned, 1);
  });
});

describe('costPerRequest', () => {
  it('gives the servers’ CPU milliseconds per request, leaving out the load generator', () => {
    // 0.5 + 0.25 cores for 10 s is 7.5 CPU seconds, over 1000 requests.
    expect(costPerRequest({ api: 0.5, worker: 0.25, bench: 1.5 }, 10, 1000)).toBe(7.5);
    expect(costPerRequest({ api: 1, postgres: 0.2, bench: 0 }, 2, 400)).toBeCloseTo(6, 10);
    expect(costPerRequest({ bench: 1.9 }, 10, 1000)).toBe(0);
  });

  it('has no cost when there were no requests', () => {
    expect(costPerRequest({ api: 0.5, bench: 1 }, 10, 0)).toBeNull();
  });
});

describeOnLinux('postmasterOf', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'bench-cpu-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('finds no server for a data folder no process names', () => {
    expect(postmasterOf(path.join(folder, 'postgres'))).toBeNull();
  });

  it('finds the process whose command line is postgres on that data folder, not another that names the folder', async () => {
    const dataDir = path.join(folder, 'data');
    const idleNode = (args: string[]) => spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)', ...args], { stdio: 'ignore' });
    const other = idleNode(['backup', dataDir]);
    const server = idleNode(['postgres', '-D', dataDir]);
    try {
      await Promise.all([spawned(other), spawned(server)]);
      expect(postmasterOf(dataDir)).toBe(server.pid);
      expect(postmasterOf(path.join(folder, 'elsewhere'))).toBeNull();
    } finally {
      other.kill();
      server.kill();
      await Promise.all([exited(other), exited(server)]);
    }
  });
});

describeOnLinux('untilQuiet', () => {
  it('returns at once, after one second’s look, when the stack is idle', async () => {
    const idle = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await spawned(idle);
      const started = performance.now();
      const busySeconds = await untilQuiet(() => accountCpu({ idle: idle.pid }), { maxSeconds: 10 });
      expect(busySeconds).toBeLessThan(0.01);
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      idle.kill();
      await exited(idle);
    }
  });
});

describe('untilQuiet, on an account that reports given shares', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** An account factory whose n-th span reports the n-th shares (the last one from then on). */
  const reporting = (...spans: Array<Record<string, number>>) => {
    let opened = 0;
    return () => {
      const shares = spans[Math.min(opened++, spans.length - 1)]!;
      return { stop: () => shares };
    };
  };
  /** What `promise` settled with once `seconds` have passed, or 'still waiting'. */
  const after = async <T>(seconds: number, promise: Promise<T>) => {
    await jest.advanceTimersByTimeAsync(seconds * 1000);
    return Promise.race([promise, Promise.resolve('still waiting')]);
  };

  it('waits while the stack’s processes together use a share of a core at or over the limit', async () => {
    const account = reporting({ api: 0.1, worker: 0.1, bench: 0 }, { api: 0.15, bench: 0 }, { api: 0.05, worker: 0.05, bench: 0 });
    const quiet = untilQuiet(account, { below: 0.15 });
    expect(await after(2, quiet)).toBe('still waiting');
    expect(await after(1, quiet)).toBe(2);
  });

  it('does not count the load generator’s own CPU as the stack being busy', async () => {
    const account = reporting({ api: 0.01, bench: 1.9 });
    expect(await after(1, untilQuiet(account))).toBe(0);
  });

  it('gives up after maxSeconds on a stack that stays busy', async () => {
    const account = reporting({ worker: 1.5, bench: 0 });
    expect(await after(4, untilQuiet(account, { maxSeconds: 3 }))).toBe(3);
  });
});
