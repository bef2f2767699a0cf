import type { MikroORM } from '@mikro-orm/postgresql';
import * as rateLimits from '../../db/rate-limits';

/** How often the hits counted in the process are written. */
export const WRITE_EVERY_MS = 50;

/** Hits a store counted in the process and hands over to be written, and where they go back on a failure. */
export interface UnwrittenHits {
  keys: string[];
  hits: number[];
  windowMs: number[];
  /** Called with the database's answer for these keys, or null when the write failed. */
  settle(rows: rateLimits.CountRow[] | null): void;
}

/** What the writer asks of a store (PostgresRateLimitStore). */
export interface CountsInProcess {
  /** Hands over every hit counted since the last write, or null when there is none. */
  takeUnwritten(): UnwrittenHits | null;
}

/**
 * Writes the hits every rate-limit store of a process counted, in ONE statement every
 * WRITE_EVERY_MS, whatever the number of budgets: the partner's, the rider's, the per-IP ones
 * and the dashboard's would otherwise each run a timer and a write of their own.
 */
export class RateLimitWriter {
  private static readonly perOrm = new WeakMap<MikroORM, RateLimitWriter>();

  /** The process's writer for this database. */
  static of(orm: MikroORM): RateLimitWriter {
    let writer = RateLimitWriter.perOrm.get(orm);
    if (!writer) RateLimitWriter.perOrm.set(orm, (writer = new RateLimitWriter(orm)));
    return writer;
  }

  private readonly waiting = new Set<CountsInProcess>();
  private timer: NodeJS.Timeout | undefined;
  /** The write under way, so a hit that must be exact waits for it rather than count it twice. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly orm: MikroORM,
    private readonly writeEveryMs = WRITE_EVERY_MS,
  ) {}

  /** Resolves once the write under way, if any, has been answered. */
  get settled(): Promise<void> {
    return this.writing;
  }

  /** `store` has hits to write: they go with the next write. */
  schedule(store: CountsInProcess): void {
    this.waiting.add(store);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.writeEveryMs);
    this.timer.unref();
  }

  /** Writes every hit counted so far (the timer does this every `writeEveryMs`). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.writeWaiting());
    return this.writing;
  }

  shutdown(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async writeWaiting(): Promise<void> {
    const stores = [...this.waiting];
    this.waiting.clear();
    const batches = stores.map((store) => ({ store, batch: store.takeUnwritten() })).filter((b) => b.batch !== null);
    if (batches.length === 0) return;
    const all = batches.map((b) => b.batch!);
    let rows: rateLimits.CountRow[] | null = null;
    try {
      rows = await rateLimits.addHits(
        this.orm.em,
        all.flatMap((b) => b.keys),
        all.flatMap((b) => b.hits),
        all.flatMap((b) => b.windowMs),
      );
    } catch {
      // Postgres did not answer: the stores keep their hits, written at the next interval. The
      // requests that need an exact count get the error themselves.
      for (const { store } of batches) this.schedule(store);
    }
    for (const { batch } of batches) {
      const keys = new Set(batch!.keys);
      batch!.settle(rows === null ? null : rows.filter((row) => keys.has(row.key)));
    }
  }
}
