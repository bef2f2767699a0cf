/**
 * Credentials found valid, remembered by their hash for a short while so that a busy client's
 * requests do not each ask Postgres again. Unknown credentials are never remembered, so a new
 * key or token works at once; a revocation this process hears of is dropped at once.
 */
export class TokenCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly ttlMs: number,
    /** Beyond it the cache starts over (a burst of many credentials). */
    private readonly maxEntries = 10_000,
  ) {}

  get(hash: string): T | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.until > Date.now()) return entry.value;
    this.entries.delete(hash);
    return undefined;
  }

  /** `expiresAt` (ms since the epoch): the credential's own end, when it comes before the cache's time. */
  set(hash: string, value: T, expiresAt?: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(hash, { value, until: Math.min(Date.now() + this.ttlMs, expiresAt ?? Infinity) });
  }

  clear(): void {
    this.entries.clear();
  }

  delete(hash: string): void {
    this.entries.delete(hash);
  }

  deleteWhere(test: (value: T) => boolean): void {
    for (const [hash, entry] of this.entries) if (test(entry.value)) this.entries.delete(hash);
  }
}
