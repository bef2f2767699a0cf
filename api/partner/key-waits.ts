/** Told when a key settles in another process (LISTEN/NOTIFY: `db/idempotency-notices.ts`). */
export interface SettledNotices {
  listen(digest: string, heard: () => void): Promise<() => void>;
}

/** What `KeyWaits.next` gives when the waiter's own deadline came first. */
export const WAIT_OVER = Symbol('wait over');

/**
 * Repeats of a request whose first is still running wait here: one wait per key in this process,
 * however many repeats wait on it. A round of the wait ends when the key settles (a notice from
 * any process, or `settled` from this one), or after `lookEveryMs` in case a notice was missed,
 * and is followed by one look at the key, whose result every waiter of the round shares.
 */
export class KeyWaits {
  private readonly waits = new Map<string, KeyWait>();

  constructor(
    private readonly notices: SettledNotices,
    private readonly lookEveryMs = 1_000,
  ) {}

  /** The key settled in this process: its waiters here look at once. */
  settled(digest: string): void {
    this.waits.get(digest)?.wake();
  }

  /** Keys with a wait in this process (for tests and metrics). */
  get waiting(): number {
    return this.waits.size;
  }

  /**
   * Waits for the next round on `digest` and gives what its look found, or WAIT_OVER once `until`
   * (a `Date.now()` time) has passed first. `look` is used if this waiter starts the round.
   */
  async next<T>(digest: string, look: () => Promise<T>, until: number): Promise<T | typeof WAIT_OVER> {
    let wait = this.waits.get(digest);
    if (!wait) {
      wait = new KeyWait(digest, this.notices, this.lookEveryMs, () => this.waits.delete(digest));
      this.waits.set(digest, wait);
    }
    return wait.next(look, until);
  }
}

class KeyWait {
  private waiters = 0;
  private endTimer: NodeJS.Timeout | undefined;
  private round: Promise<unknown> | null = null;
  private wakeRound: (() => void) | null = null;
  private stopListening: Promise<() => void> | null = null;
  /** The first round looks as soon as it listens: the key may have settled before it did. */
  private listened = false;

  constructor(
    private readonly digest: string,
    private readonly notices: SettledNotices,
    private readonly lookEveryMs: number,
    private readonly gone: () => void,
  ) {}

  wake(): void {
    this.wakeRound?.();
  }

  async next<T>(look: () => Promise<T>, until: number): Promise<T | typeof WAIT_OVER> {
    this.waiters += 1;
    clearTimeout(this.endTimer);
    let timer: NodeJS.Timeout | undefined;
    try {
      this.round ??= this.nextRound(look);
      const over = new Promise<typeof WAIT_OVER>((resolve) => {
        timer = setTimeout(() => resolve(WAIT_OVER), Math.max(0, until - Date.now()));
      });
      return (await Promise.race([this.round as Promise<T>, over])) as T | typeof WAIT_OVER;
    } finally {
      clearTimeout(timer);
      this.waiters -= 1;
      // A waiter that looked comes back for the next round: the wait stays (and listens) a while.
      if (this.waiters === 0) {
        this.endTimer = setTimeout(() => this.waiters === 0 && this.end(), this.lookEveryMs);
        this.endTimer.unref();
      }
    }
  }

  private async nextRound<T>(look: () => Promise<T>): Promise<T> {
    try {
      const woken = new Promise<void>((resolve) => {
        this.wakeRound = resolve;
      });
      this.stopListening ??= this.notices.listen(this.digest, () => this.wake());
      const listening = await this.stopListening.then(
        () => true,
        () => false,
      );
      if (listening && !this.listened) {
        this.listened = true;
      } else {
        // No notices (the connection could not be opened) leaves only the interval.
        if (!listening) this.stopListening = null;
        const timer = setTimeout(() => this.wake(), this.lookEveryMs);
        timer.unref();
        await woken;
        clearTimeout(timer);
      }
    } finally {
      this.wakeRound = null;
    }
    try {
      // Every waiter left (their deadlines came): nobody needs the look.
      if (this.waiters === 0) return undefined as T;
      return await look();
    } finally {
      this.round = null;
    }
  }

  private end(): void {
    this.gone();
    this.wake();
    void this.stopListening?.then((stop) => stop()).catch(() => undefined);
    this.stopListening = null;
  }
}
