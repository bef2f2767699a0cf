import type { Response } from 'express';

/**
 * The `Server-Timing` header (W3C): how long each stage of a request took in the API, so a slow
 * answer can be split into its parts from the outside (a rider's step: its read, the workflow
 * update, the job view). Durations in milliseconds; no stage ever names data.
 */
export class ServerTiming {
  private readonly stages: string[] = [];

  /** Runs `work` as the stage `name` and notes how long it took. */
  async measure<T>(name: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.stages.push(`${name};dur=${(performance.now() - started).toFixed(1)}`);
    }
  }

  /** Sets the header on `res`: call before the answer is sent. */
  writeTo(res: Response): void {
    if (this.stages.length) res.setHeader('Server-Timing', this.stages.join(', '));
  }
}
