import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * The settled part of a hot read's answer, kept per delivery with the version of the rows it was
 * built from, and sent with an ETag. The live fields (where the rider is, the ETA) move without
 * that version and are read afresh on every request, in the same query as the version, then
 * placed in the kept part (docs/decisions/0175-read-caches-that-hit.md). A read sends the kept
 * part only when the version matches, so any change is seen by the very next read: nothing is
 * served stale, only the work of building an unchanged answer is saved. Recipients and partners
 * poll a few live deliveries far more often than those deliveries change.
 */
export class VersionedViewCache<T extends { bytes: number }> {
  /** In the order they were last used, oldest first (a Map iterates in insertion order). */
  private readonly entries = new Map<string, { version: string; value: T; at: number }>();
  private heldBytes = 0;

  /**
   * Bounded by entries and by bytes (the JSON size of what is kept); an entry nobody has read for
   * `idleMs` goes as others come, so a busy day's finished deliveries do not stay until a limit.
   */
  constructor(
    private readonly limits: { entries: number; bytes: number; idleMs: number },
    /** Milliseconds on a steady clock; a test gives its own. */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether something is kept for `key` that was read recently enough to be read again. */
  holds(key: string): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && this.now() - entry.at <= this.limits.idleMs;
  }

  /** What is kept for `key` at `version`; a hit makes it the most recently used. */
  get(key: string, version: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    entry.at = this.now();
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, version: string, value: T): void {
    const now = this.now();
    this.forget(key);
    this.entries.set(key, { version, value, at: now });
    this.heldBytes += value.bytes;
    for (const [oldest, entry] of this.entries) {
      const over = this.entries.size > this.limits.entries || this.heldBytes > this.limits.bytes;
      if (!over && now - entry.at <= this.limits.idleMs) break;
      this.forget(oldest);
    }
  }

  /** How many answers are kept, and their JSON's size. */
  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.heldBytes -= entry.value.bytes;
    this.entries.delete(key);
  }
}

/** A settled answer as kept: what placing the live fields needs, a digest of its JSON for the ETag, and its size. */
export interface Kept<S> {
  settled: S;
  digest: string;
  bytes: number;
}

/** Serialises a settled answer's view once, when it is built, for its digest and size. */
export function keep<S extends { view: unknown }>(settled: S): Kept<S> {
  const json = JSON.stringify(settled.view);
  return { settled, digest: createHash('sha1').update(json).digest('base64url'), bytes: json.length };
}

/**
 * Sends the answer with a strong ETag, or 304 with no body when the request's If-None-Match names
 * it. The ETag is a digest of the settled JSON's digest and of the live fields placed in it: the
 * answer is those two and nothing else, so equal tags mean equal bytes, from any API process, and
 * no whole body is hashed per request. `assemble` places the live fields; it runs only for a 200.
 */
export function sendWithEtag(req: Request, res: Response, digest: string, live: unknown, assemble: () => unknown): void {
  res.setHeader('ETag', `"${createHash('sha1').update(digest).update(JSON.stringify(live)).digest('base64url')}"`);
  // Express's own check (the `fresh` package): GET or HEAD, any of the tags or `*`, and not when
  // the request says `Cache-Control: no-cache`.
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.json(assemble());
}
