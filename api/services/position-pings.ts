import type { MikroORM } from '@mikro-orm/postgresql';
import * as riders from '../../db/riders';
import type { LatLng } from '../../domain/geo';

/** How long a ping waits for others to be written with it: a tenth of its 100 ms budget. */
export const PING_BATCH_MS = 10;

/** A batch goes at once when this many riders have pinged into it. */
const PING_BATCH_MAX = 500;

/**
 * Position pings written together. A city's phones ping thousands of times a second; one
 * transaction each made the commits, not the rows, Postgres's work. A ping waits up to
 * PING_BATCH_MS for others, one statement writes the latest position of every rider among them,
 * and each ping is answered once that write has committed, so a 204 still means the position is
 * stored and the rider's next request sees it. Batches are written one after another, so a
 * rider's older position never lands after a newer one.
 */
export class PositionPings {
  private batch = new Map<string, LatLng>();
  private waiting: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly orm: MikroORM,
    private readonly batchMs = PING_BATCH_MS,
  ) {}

  record(riderId: string, position: LatLng): Promise<void> {
    // A rider's later ping in the same batch replaces the earlier one.
    this.batch.set(riderId, position);
    const stored = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    if (this.batch.size >= PING_BATCH_MAX) this.write();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.write(), this.batchMs);
      this.timer.unref();
    }
    return stored;
  }

  private write(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    // The batch in flight finishes first; this one keeps filling meanwhile and goes right after.
    if (this.writing || this.batch.size === 0) return;
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
        if (this.batch.size > 0) this.write();
      });
  }
}
