import type { MikroORM } from '@mikro-orm/postgresql';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import * as rateLimits from '../../db/rate-limits';
import { RateLimitWriter, type CountsInProcess, type UnwrittenHits } from './rate-limit-writer';

/** How often counters whose window has passed are swept away. */
const SWEEP_EVERY_MS = 60_000;

/** Budgets below this are counted one hit at a time: half of them is a burst of a few requests. */
const LOCAL_COUNTING_MIN_LIMIT = 100;

/** How long a count heard from Postgres is trusted for counting on top of it in the process. */
export const COUNT_TRUSTED_FOR_MS = 1_000;

/** The window's count as this process knows it: Postgres's last word and the hits counted here since. */
function countOf(window: KnownWindow): number {
  return window.written + window.writing + window.unwritten;
}

/** What this process knows of one key's window. */
interface KnownWindow {
  /** The database's count when it last answered (every hit of this process written by then included). */
  written: number;
  /** Hits counted here since, being written now. */
  writing: number;
  /** Hits counted here since, not yet written. */
  unwritten: number;
  resetTime: Date;
  /** When Postgres last told this process the key's count. */
  heardAt: number;
  /** When the window ends, by this process's clock (the database's clock, shifted by the time left it reported). */
  endsAt: number;
}

/**
 * Fixed-window counters in Postgres (`rate_limit_counters`), so every API process spends one
 * budget, with the database clock deciding when a window starts and ends.
 *
 * A hit costs a database write of its own only where the count must be exact: every hit in the
 * second half of a budget is one upsert, counted atomically under the row lock, so processes
 * together never let more through than the budget. Hits in the first half of a budget (of at
 * least LOCAL_COUNTING_MIN_LIMIT) are counted in the process on top of the count Postgres last
 * gave it, while that is young enough (`countTrustedForMs`: the API's budgets trust it for their
 * window), and written every WRITE_EVERY_MS in one statement for all keys of every store of the
 * process (RateLimitWriter); so is every hit once a budget is spent, which stays spent whatever
 * is counted on top. Each write's answer brings the other processes' hits, so the first half
 * could be overspent only by the hits one process lets through before its next write is
 * answered, and only if the others meanwhile took the key from under half its budget to all of
 * it. One process alone always sees the exact count.
 */
export class PostgresRateLimitStore implements Store, CountsInProcess {
  readonly localKeys = false;
  private windowMs = 60_000;
  /** The budget per window, when it is one number for every key (else every hit is written at once). */
  private limit: number | undefined;
  private nextSweep = 0;
  private readonly known = new Map<string, KnownWindow>();

  constructor(
    private readonly orm: MikroORM,
    readonly prefix: string,
    /** Writes the hits counted here with every other store's of the process. */
    private readonly writer = RateLimitWriter.of(orm),
    /**
     * How long a count heard from Postgres is counted on top of in the process. Longer suits keys
     * that send a request every few seconds for hours (a rider's phone): each hit counted here is
     * written within WRITE_EVERY_MS, and that write's answer brings the other processes' hits, so
     * a stale count is corrected within one write, whatever this says.
     */
    private readonly countTrustedForMs = COUNT_TRUSTED_FOR_MS,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.limit = typeof options.limit === 'number' ? options.limit : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const fullKey = this.fullKey(key);
    const window = this.known.get(fullKey);
    if (window && this.countsLocally(window)) {
      window.unwritten += 1;
      this.writer.schedule(this);
      return { totalHits: countOf(window), resetTime: window.resetTime };
    }
    // Exact: wait for a batch in flight, then write this hit with any of the key's unwritten ones.
    await this.writer.settled;
    const current = this.known.get(fullKey);
    const hits = 1 + (current?.unwritten ?? 0);
    if (current) current.unwritten = 0;
    let row: rateLimits.CountRow | undefined;
    try {
      [row] = await rateLimits.addHits(this.orm.em, [fullKey], [hits], this.windowMs);
    } catch (error) {
      if (current) current.unwritten += hits - 1;
      throw error;
    }
    this.sweep();
    if (!row) return { totalHits: hits, resetTime: undefined };
    this.remember(row);
    // This hit's own count, exact under the row lock (answers to hits sent together may arrive in any order).
    return { totalHits: Number(row.hits), resetTime: new Date(row.reset_at) };
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const fullKey = this.fullKey(key);
    const row = await rateLimits.currentWindow(this.orm.em.fork(), fullKey);
    const window = this.known.get(fullKey);
    const unwritten = window?.unwritten ?? 0;
    if (!row) return window && unwritten > 0 ? { totalHits: unwritten, resetTime: window.resetTime } : undefined;
    return { totalHits: Number(row.hits) + unwritten, resetTime: new Date(row.reset_at) };
  }

  async decrement(key: string): Promise<void> {
    const fullKey = this.fullKey(key);
    const window = this.known.get(fullKey);
    if (window && window.unwritten > 0) {
      window.unwritten -= 1;
      return;
    }
    if (window) window.written = Math.max(window.written - 1, 0);
    await rateLimits.takeBackHit(this.orm.em.fork(), fullKey);
  }

  async resetKey(key: string): Promise<void> {
    const fullKey = this.fullKey(key);
    this.known.delete(fullKey);
    await rateLimits.forget(this.orm.em.fork(), fullKey);
  }

  /** Writes every hit counted in the process so far (its writer does this every WRITE_EVERY_MS). */
  flush(): Promise<void> {
    this.writer.schedule(this);
    return this.writer.flush();
  }

  shutdown(): void {
    this.writer.shutdown();
  }

  private countsLocally(window: KnownWindow): boolean {
    const now = Date.now();
    if (this.limit === undefined || now >= window.endsAt || now - window.heardAt >= this.countTrustedForMs) return false;
    const count = countOf(window);
    // A spent budget stays spent; the first half of a large one is far from its end.
    return count >= this.limit || (this.limit >= LOCAL_COUNTING_MIN_LIMIT && count + 1 <= this.limit / 2);
  }

  /** Takes in what Postgres answered about a key's window. */
  private remember(row: rateLimits.CountRow): void {
    const resetTime = new Date(row.reset_at);
    const written = Number(row.hits);
    const now = Date.now();
    const endsAt = now + Number(row.left_ms);
    const window = this.known.get(row.key);
    if (!window) {
      this.known.set(row.key, { written, writing: 0, unwritten: 0, resetTime, heardAt: now, endsAt });
    } else if (resetTime.getTime() > window.resetTime.getTime()) {
      // The database started a new window. Hits counted here meanwhile are still to be written: keep them.
      Object.assign(window, { written, resetTime, heardAt: now, endsAt });
    } else if (resetTime.getTime() === window.resetTime.getTime()) {
      // Answers may arrive out of order; the count of a window only grows.
      window.written = Math.max(window.written, written);
      window.heardAt = now;
    }
  }

  takeUnwritten(): UnwrittenHits | null {
    const keys: string[] = [];
    const hits: number[] = [];
    const windows: KnownWindow[] = [];
    for (const [fullKey, window] of this.known) {
      if (window.unwritten === 0) continue;
      keys.push(fullKey);
      hits.push(window.unwritten);
      windows.push(window);
      window.writing = window.unwritten;
      window.unwritten = 0;
    }
    if (keys.length === 0) return null;
    return {
      keys,
      hits,
      windowMs: keys.map(() => this.windowMs),
      settle: (rows) => {
        // Not written: the hits go back, to be written with the next batch.
        for (const window of windows) {
          if (rows === null) window.unwritten += window.writing;
          window.writing = 0;
        }
        for (const row of rows ?? []) this.remember(row);
      },
    };
  }

  /** Keys seen once are not kept for ever: a window that has ended, with nothing left to write, is dropped. */
  private forgetEndedWindows(): void {
    const now = Date.now();
    for (const [fullKey, window] of this.known) {
      if (window.unwritten === 0 && window.writing === 0 && now >= window.endsAt) this.known.delete(fullKey);
    }
  }

  private fullKey(key: string): string {
    return `${this.prefix}:${key}`;
  }

  /** Old windows are dead weight; any process may clear them, now and then, off the request path. */
  private sweep(): void {
    if (Date.now() < this.nextSweep) return;
    this.nextSweep = Date.now() + SWEEP_EVERY_MS;
    this.forgetEndedWindows();
    void rateLimits.sweepEnded(this.orm.em.fork()).catch(() => undefined);
  }
}
