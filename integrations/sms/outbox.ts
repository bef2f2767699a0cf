import type { SmsSender } from './sender';

/** Where the outbox keeps its texts: our own Postgres (db/sms-outbox.ts). */
export interface OutboxStore {
  add(text: { to: string; body: string; deliveryId: string | null }): Promise<void>;
}

/**
 * The offline default: messages go to a Postgres outbox, read by `npm run ops -- outbox` and shown
 * on the dashboard page of the delivery they are about.
 */
export class OutboxSms implements SmsSender {
  constructor(private readonly store: OutboxStore) {}

  async send(to: string, body: string, deliveryId?: string): Promise<void> {
    await this.store.add({ to, body, deliveryId: deliveryId ?? null });
  }
}
