import type { Response } from 'express';

/**
 * The last answer of a hot read, kept per delivery with the version of the rows it was built
 * from. A read asks Postgres for the current version first (one primary-key lookup, no JSON to
 * build) and sends the kept bytes when it matches, so any change is seen by the very next read:
 * nothing is served stale, only the work of building an unchanged answer is saved. Recipients
 * and partners poll a few live deliveries far more often than those deliveries change.
 */
export class VersionedViewCache {
  private readonly entries = new Map<string, { version: string; body: string; at: number }>();

  /** `maxAgeMs` bounds answers that also depend on time (the tracking view's ETA). */
  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  get(key: string, version: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version || performance.now() - entry.at > this.maxAgeMs) return undefined;
    return entry.body;
  }

  set(key: string, version: string, body: string): void {
    this.entries.delete(key);
    this.entries.set(key, { version, body, at: performance.now() });
    // Oldest first out: a Map iterates in insertion order.
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** Sends kept JSON bytes exactly as `res.json` sent them the first time. */
export function sendJsonBytes(res: Response, body: string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(body);
}
