import { Client, type ClientConfig } from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The channel on which a request that owns an `Idempotency-Key` says it settled (its answer was
 * kept, or the key let go of): repeats waiting in any API process wake and look again.
 */
export const KEY_SETTLED_CHANNEL = 'idempotency_key_settled';

/**
 * One `LISTEN` connection for this process's waiting repeats, open only while some wait: a
 * connection of its own, since the pool's lend theirs for a query at a time and a held one would
 * shrink the pool. If it breaks, every listener is told (`lost`) so that waiters look again
 * rather than wait for a notice that can no longer come; the next wait opens a new one.
 */
export class KeySettledNotices {
  private client: Client | null = null;
  private opening: Promise<void> | null = null;
  private readonly listeners = new Map<string, Set<() => void>>();
  private closeTimer: NodeJS.Timeout | null = null;

  /** `connection`: how to reach the database (the ORM pool's own options). */
  constructor(
    private readonly connection: () => Promise<ClientConfig>,
    /** How long the connection stays open after the last listener leaves, so bursts reuse it. */
    private readonly lingerMs = 5_000,
  ) {}

  /** The options of the ORM's `pg` pool, to open the listening connection like its others. */
  static from(em: EntityManager, lingerMs?: number): KeySettledNotices {
    return new KeySettledNotices(async () => {
      const { options } = (await em.getConnection().getNativeClient()) as unknown as { options: ClientConfig };
      // `pg` keeps the password out of the options' enumerable keys, so that logs do not show it.
      return { ...options, password: options.password };
    }, lingerMs);
  }

  /**
   * Calls `heard` on each notice for `digest` (or when the connection is lost) until the returned
   * function is called. Resolves once the connection listens, so a look made after it misses
   * nothing.
   */
  async listen(digest: string, heard: () => void): Promise<() => void> {
    let set = this.listeners.get(digest);
    if (!set) this.listeners.set(digest, (set = new Set()));
    set.add(heard);
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.closeTimer = null;
    const stop = () => {
      const mine = this.listeners.get(digest);
      mine?.delete(heard);
      if (mine?.size === 0) this.listeners.delete(digest);
      if (this.listeners.size === 0 && !this.closeTimer) {
        this.closeTimer = setTimeout(() => void this.close(), this.lingerMs);
        this.closeTimer.unref();
      }
    };
    try {
      await this.open();
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  /** Closes the connection now (the process stops, or nobody listens any more). */
  async close(): Promise<void> {
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.closeTimer = null;
    const client = this.client;
    this.client = null;
    this.opening = null;
    await client?.end().catch(() => undefined);
  }

  private open(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.opening ??= (async () => {
      const client = new Client(await this.connection());
      client.on('notification', ({ channel, payload }) => {
        if (channel !== KEY_SETTLED_CHANNEL || !payload) return;
        for (const heard of [...(this.listeners.get(payload) ?? [])]) heard();
      });
      client.on('error', () => this.lost(client));
      client.on('end', () => this.lost(client));
      try {
        await client.connect();
        await client.query(`listen ${KEY_SETTLED_CHANNEL}`);
      } catch (error) {
        this.opening = null;
        await client.end().catch(() => undefined);
        throw error;
      }
      this.client = client;
      this.opening = null;
    })();
    return this.opening;
  }

  /** The connection broke: forget it, and wake everyone, since no notice can reach them now. */
  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = null;
    for (const set of this.listeners.values()) for (const heard of [...set]) heard();
  }
}
