import type { EntityManager } from '@mikro-orm/postgresql';
import type { SmsSender } from './sender';

/** The offline default: messages go to a Postgres outbox, read by `npm run ops -- outbox`. */
export class OutboxSms implements SmsSender {
  constructor(private readonly em: () => EntityManager) {}

  async send(to: string, body: string): Promise<void> {
    await this.em().execute('insert into sms_outbox (recipient, body) values (?, ?)', [to, body]);
  }
}
