import type { MikroORM } from '@mikro-orm/postgresql';
import * as riders from '../../db/riders';
import type { LatLng } from '../../domain/geo';

/**
 * Position pings written together. A city's phones ping thousands of times a second; one
 * transaction each made the commits, not the rows, Postgres's work. Pings that arrive while a
 * write is under way wait for it and go together in the next one (as Postgres groups commits), so
 * a quiet server writes each ping at once and a busy one writes fewer, larger batches. One
 * statement writes the latest position of every rider in a batch, and each ping is answered once
 * that write has committed: a 204 still means the position is stored and the rider's next request
 * sees it. Batches are written one after another, so an older position never lands after a newer.
 */
export class PositionPings {
  private batch = new Map<string, LatLng>();
  private waiting: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private scheduled = false;
  private writing: Promise<void> | undefined;

  constructor(private readonly orm: MikroORM) {}

  record(riderId: string, position: LatLng): Promise<void> {
    // A rider's later ping in the same batch replaces the earlier one.
    this.batch.set(riderId, position);
    const stored = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    if (!this.scheduled && !this.writing) {
      // After the pings already read off the sockets in this turn of the event loop.
      this.scheduled = true;
      setImmediate(() => this.write());
    }
    return stored;
  }

  private write(): void {
    this.scheduled = false;
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
