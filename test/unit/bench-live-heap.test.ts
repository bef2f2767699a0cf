import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { inspectFlags, liveHeapMb } from '../../bench/lib/live-heap.mjs';
import { exited } from '../helpers/child-process';
import { freePort } from '../helpers/free-port';

// A process that keeps 64 MB of arrays and 32 MB of buffers on `keep` and lets them go on
// `drop`, answering each line.
const HOLDER = `
let kept = [];
process.stdin.on('data', (line) => {
  if (String(line).trim() === 'keep') {
    for (let i = 0; i < 64; i++) kept.push(new Array(131072).fill(i));
    kept.push(Buffer.alloc(32 * 1024 * 1024, 1));
  } else kept = [];
  process.stdout.write('done\\n');
});
process.stdout.write('ready\\n');`;

describe('the bench’s live heap reading', () => {
  let holder: ChildProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    holder = spawn(process.execPath, [...inspectFlags(port), '-e', HOLDER], { stdio: ['pipe', 'pipe', 'ignore'] });
    await once(holder.stdout!, 'data');
  });
  afterAll(async () => {
    holder.kill('SIGTERM');
    await exited(holder);
  });

  const tell = async (command: string) => {
    holder.stdin!.write(`${command}\n`);
    await once(holder.stdout!, 'data');
  };

  it('sees memory the process keeps, and sees it go once the process lets it go', async () => {
    const idle = await liveHeapMb(port);
    await tell('keep');
    const holding = await liveHeapMb(port);
    await tell('drop');
    // Garbage still on the heap: only a full collection before the reading tells it from live data.
    const released = await liveHeapMb(port);

    expect(holding.heapMb - idle.heapMb).toBeGreaterThan(60);
    expect(holding.externalMb - idle.externalMb).toBeGreaterThan(30);
    expect(released.heapMb - idle.heapMb).toBeLessThan(8);
    expect(released.externalMb - idle.externalMb).toBeLessThan(2);
  }, 30_000);

  it('refuses a port where no inspector listens', async () => {
    await expect(liveHeapMb(await freePort())).rejects.toThrow();
  });
});
