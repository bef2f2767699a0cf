import type { Response } from 'express';

/**
 * The last answer of a hot read, kept per delivery with the version of the rows it was built
 * from. A read asks Postgres for the current version first (one primary-key lookup, no JSON to
 * build) and sends the kept bytes when it matches, so any change is seen by the very next read:
 * nothing is served stale, only the work of building an unchanged answer is saved. Recipients
 * and partners poll a few live deliveries far more often than those deliveries change.
 */
export class VersionedViewCache {
  private readonly entries = new Map<string, { version: string; body: Buffer; at: number }>();

  /** `maxAgeMs` bounds answers that also depend on time (the tracking view's ETA). */
  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  /** Whether an answer is kept for `key` that is young enough to be sent, if its version still matches. */
  holds(key: string): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && performance.now() - entry.at <= this.maxAgeMs;
  }

  get(key: string, version: string): Buffer | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version || performance.now() - entry.at > this.maxAgeMs) return undefined;
    return entry.body;
  }

  /** How many answers are kept. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Keeps the JSON as bytes: encoded once, not on every send. Answers too old to be sent go
   * as new ones come: otherwise every delivery of a busy day stays until the size limit, each
   * holding on to the 8 kB buffer pool block its bytes were cut from.
   */
  set(key: string, version: string, json: string): void {
    const now = performance.now();
    const body = Buffer.from(json, 'utf8');
    this.entries.delete(key);
    this.entries.set(key, { version, body, at: now });
    // Oldest first out: a Map iterates in insertion order, the order the answers were kept in.
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && now - entry.at <= this.maxAgeMs) break;
      this.entries.delete(oldest);
    }
  }
}

/** Sends kept JSON bytes with the headers `res.json` would give them. */
export function sendJsonBytes(res: Response, body: Buffer): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(body);
}
