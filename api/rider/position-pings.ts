import type { MikroORM } from '@mikro-orm/postgresql';
import * as riders from '../../db/riders';
import type { LatLng } from '../../domain/geo';

/**
 * How often, at most, a write of positions starts. A busy server's pings wait up to this long and
 * go together (thousands of phones, each every 5 s, are hundreds of pings a second), as Postgres's
 * `commit_delay` groups commits; a ping after a quiet spell is written at once.
 */
export const POSITION_WRITE_GAP_MS = 10;

/**
 * Position pings written together. A city's phones ping thousands of times a second; one
 * transaction each made the commits, not the rows, Postgres's work, and each statement cost the
 * API as much as the ping itself. Pings that arrive while a write is under way, or within
 * POSITION_WRITE_GAP_MS of the last one's start, wait and go together in the next, so a quiet
 * server writes each ping at once and a busy one writes fewer, larger batches. One statement
 * writes the latest position of every rider in a batch, and each ping is answered once that write
 * has committed: a 204 still means the position is stored and the rider's next request sees it.
 * Batches are written one after another, so an older position never lands after a newer.
 */
export class PositionPings {
  private batch = new Map<string, LatLng>();
  private waiting: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private scheduled = false;
  private writing: Promise<void> | undefined;
  /** When the last write started (performance.now()). */
  private lastWriteAt = -Infinity;

  constructor(private readonly orm: MikroORM) {}

  record(riderId: string, position: LatLng): Promise<void> {
    // A rider's later ping in the same batch replaces the earlier one.
    this.batch.set(riderId, position);
    const stored = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.schedule();
    return stored;
  }

  /** The batch in flight finishes first; this one keeps filling meanwhile and goes after it and the gap. */
  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    const wait = this.lastWriteAt + POSITION_WRITE_GAP_MS - performance.now();
    // At once: after the pings already read off the sockets in this turn of the event loop.
    if (wait <= 0) setImmediate(() => this.write());
    else setTimeout(() => this.write(), wait);
  }

  private write(): void {
    this.scheduled = false;
    if (this.writing || this.batch.size === 0) return;
    this.lastWriteAt = performance.now();
    const positions = this.batch;
    const waiting = this.waiting;
    this.batch = new Map();
    this.waiting = [];
    this.writing = riders
      .setPositions(this.orm.em, positions)
      .then(
        () => waiting.forEach((ping) => ping.resolve()),
        (error: unknown) => waiting.forEach((ping) => ping.reject(error)),
      )
      .finally(() => {
        this.writing = undefined;
        if (this.batch.size > 0) this.schedule();
      });
  }
}
