import { condition } from '@temporalio/workflow';
import type { DeliveryActivities } from './activities';

/**
 * The workflow's writes to the read model, in the order it decided them, the webhooks they
 * raise, and the payment checks a late report asks for. A partner's slow endpoint never holds up the delivery: webhooks are sent beside it, and
 * the workflow only waits for them before it completes.
 */
export class Recorder {
  private writes: Promise<unknown> = Promise.resolve();
  private readonly webhooks = new Set<Promise<void>>();
  private readonly checks = new Set<Promise<void>>();

  constructor(private readonly acts: DeliveryActivities) {}

  /** Runs `write` after every write queued before it. */
  write<T>(write: () => Promise<T>): Promise<T> {
    const run = this.writes.then(write);
    this.writes = run.catch(() => undefined);
    return run;
  }

  /** Sends the callback of a recorded event; the activity logs every attempt and the outcome. */
  sendWebhook(eventId: string | null): void {
    if (!eventId) return;
    const sending: Promise<void> = this.acts.webhooks
      .sendWebhook({ eventId })
      .catch(() => undefined)
      .finally(() => this.webhooks.delete(sending));
    this.webhooks.add(sending);
  }

  /** Work beside the delivery (a payment check) that must finish before the workflow completes. */
  track(work: Promise<void>): void {
    const tracked: Promise<void> = work.catch(() => undefined).finally(() => this.checks.delete(tracked));
    this.checks.add(tracked);
  }

  get webhooksOutstanding(): number {
    return this.webhooks.size;
  }

  /** Every write done, and every webhook and payment check finished. */
  async drained(): Promise<void> {
    await this.writes;
    await condition(() => this.webhooks.size === 0 && this.checks.size === 0);
  }

  /** Resolves once the writes queued so far are done. */
  async writesDone(): Promise<void> {
    await this.writes;
  }
}
