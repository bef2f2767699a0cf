import type { EntityManager } from '@mikro-orm/postgresql';
import type { SmsSender } from './sender';

/**
 * The offline default: messages go to a Postgres outbox, read by `npm run ops -- outbox` and shown
 * on the dashboard page of the delivery they are about.
 */
export class OutboxSms implements SmsSender {
  constructor(private readonly em: () => EntityManager) {}

  async send(to: string, body: string, deliveryId?: string): Promise<void> {
    await this.em().execute('insert into sms_outbox (recipient, body, delivery_id) values (?, ?, ?)', [to, body, deliveryId ?? null]);
  }
}
