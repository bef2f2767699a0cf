import type { MikroORM } from '@mikro-orm/postgresql';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import { poolQuery } from '../../db/pool-query';

/** Starts a new window when the old one has passed, else counts the hit; returns the window's count. */
const COUNT_HIT = {
  name: 'rate-limit-count-hit',
  text: `insert into rate_limit_counters (key, hits, reset_at)
         values ($1, 1, now() + $2::integer * interval '1 millisecond')
         on conflict (key) do update set
           hits = case when rate_limit_counters.reset_at <= now() then 1 else rate_limit_counters.hits + 1 end,
           reset_at = case when rate_limit_counters.reset_at <= now() then excluded.reset_at else rate_limit_counters.reset_at end
         returning hits, reset_at`,
};

/** How often counters whose window has passed are swept away. */
const SWEEP_EVERY_MS = 60_000;

/**
 * Fixed-window counters in Postgres (`rate_limit_counters`), so every API process spends one
 * budget. One upsert per request: it starts a new window when the old one has passed, else
 * counts the hit, atomically under the row lock, with the database clock as the only clock.
 */
export class PostgresRateLimitStore implements Store {
  readonly localKeys = false;
  private windowMs = 60_000;
  private nextSweep = 0;

  constructor(
    private readonly orm: MikroORM,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    // On every limited request: a prepared statement on a pool client, not through the ORM.
    const { rows } = await poolQuery(this.orm.em).query<{ hits: number; reset_at: Date }>({
      ...COUNT_HIT,
      values: [this.fullKey(key), this.windowMs],
    });
    const row = rows[0];
    this.sweep();
    return { totalHits: Number(row?.hits ?? 1), resetTime: row ? new Date(row.reset_at) : undefined };
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const [row] = await this.orm.em
      .fork()
      .execute<{ hits: number; reset_at: Date }[]>(
        'select hits, reset_at from rate_limit_counters where key = ? and reset_at > now()',
        [this.fullKey(key)],
      );
    return row ? { totalHits: Number(row.hits), resetTime: new Date(row.reset_at) } : undefined;
  }

  async decrement(key: string): Promise<void> {
    await this.orm.em
      .fork()
      .execute('update rate_limit_counters set hits = greatest(hits - 1, 0) where key = ? and reset_at > now()', [this.fullKey(key)]);
  }

  async resetKey(key: string): Promise<void> {
    await this.orm.em.fork().execute('delete from rate_limit_counters where key = ?', [this.fullKey(key)]);
  }

  private fullKey(key: string): string {
    return `${this.prefix}:${key}`;
  }

  /** Old windows are dead weight; any process may clear them, now and then, off the request path. */
  private sweep(): void {
    if (Date.now() < this.nextSweep) return;
    this.nextSweep = Date.now() + SWEEP_EVERY_MS;
    void this.orm.em
      .fork()
      .execute(`delete from rate_limit_counters where reset_at < now() - interval '1 minute'`)
      .catch(() => undefined);
  }
}
