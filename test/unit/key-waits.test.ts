import { KeyWaits, WAIT_OVER, type SettledNotices } from '../../api/partner/key-waits';

/** Notices as the LISTEN connection gives them, told by hand; or none at all when it cannot open. */
class HandNotices implements SettledNotices {
  readonly heard = new Map<string, Set<() => void>>();
  listens = 0;
  constructor(private readonly opens = true) {}
  async listen(digest: string, heard: () => void): Promise<() => void> {
    if (!this.opens) throw new Error('connection refused');
    this.listens += 1;
    const set = this.heard.get(digest) ?? new Set();
    set.add(heard);
    this.heard.set(digest, set);
    return () => set.delete(heard);
  }
  notify(digest: string): void {
    for (const heard of this.heard.get(digest) ?? []) heard();
  }
  listeners(digest: string): number {
    return this.heard.get(digest)?.size ?? 0;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const inAMinute = () => Date.now() + 60_000;

describe('KeyWaits', () => {
  it('gives many waiters on one key one look a round, woken by a notice', async () => {
    const notices = new HandNotices();
    const waits = new KeyWaits(notices, 60_000);
    let looks = 0;
    let state = 'running';
    const look = async () => {
      looks += 1;
      return state;
    };
    // The first round looks as soon as it listens: the key may have settled just before.
    const first = await Promise.all(Array.from({ length: 20 }, () => waits.next('k', look, inAMinute())));
    expect(first).toEqual(Array(20).fill('running'));
    expect(looks).toBe(1);

    const second = Promise.all(Array.from({ length: 20 }, () => waits.next('k', look, inAMinute())));
    await sleep(50);
    expect(looks).toBe(1);
    state = 'answered';
    notices.notify('k');
    expect(await second).toEqual(Array(20).fill('answered'));
    expect(looks).toBe(2);
    expect(notices.listens).toBe(1);
  });

  it('wakes at once when the key settles in this process', async () => {
    const notices = new HandNotices();
    const waits = new KeyWaits(notices, 60_000);
    await waits.next('k', async () => 'running', inAMinute());
    const waiting = waits.next('k', async () => 'answered', inAMinute());
    await sleep(20);
    waits.settled('k');
    expect(await waiting).toBe('answered');
  });

  it('keeps keys apart', async () => {
    const notices = new HandNotices();
    const waits = new KeyWaits(notices, 60_000);
    await Promise.all([waits.next('a', async () => 'a0', inAMinute()), waits.next('b', async () => 'b0', inAMinute())]);
    let bLooked = false;
    const a = waits.next('a', async () => 'a1', inAMinute());
    const b = waits.next('b', async () => ((bLooked = true), 'b1'), Date.now() + 100);
    notices.notify('a');
    expect(await a).toBe('a1');
    expect(await b).toBe(WAIT_OVER);
    expect(bLooked).toBe(false);
  });

  it("gives WAIT_OVER at the waiter's deadline, and stops listening a round after nobody waits", async () => {
    const notices = new HandNotices();
    const waits = new KeyWaits(notices, 200);
    await waits.next('k', async () => 'running', inAMinute());
    const started = Date.now();
    expect(await waits.next('k', async () => 'running', Date.now() + 100)).toBe(WAIT_OVER);
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(notices.listeners('k')).toBe(1);
    await sleep(250);
    expect(waits.waiting).toBe(0);
    expect(notices.listeners('k')).toBe(0);
  });

  it('looks every interval when no notice can come', async () => {
    const waits = new KeyWaits(new HandNotices(false), 100);
    let looks = 0;
    const look = async () => ++looks;
    const started = Date.now();
    expect(await waits.next('k', look, inAMinute())).toBe(1);
    expect(await waits.next('k', look, inAMinute())).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});
