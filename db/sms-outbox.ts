import type { EntityManager } from '@mikro-orm/postgresql';
import type { OutboxStore } from '../integrations/sms/outbox';

/**
 * The SMS outbox, the offline default's store of texts (integrations/sms/outbox.ts sends to it),
 * read by a delivery's dashboard page, `npm run ops -- outbox` and the tests.
 */

/** The outbox's store on the ORM; `em` is asked for an entity manager at each text. */
export function outboxStore(em: () => EntityManager): OutboxStore {
  return {
    async add({ to, body, deliveryId }) {
      await em().execute('insert into sms_outbox (recipient, body, delivery_id) values (?, ?, ?)', [to, body, deliveryId]);
    },
  };
}

/** The texts sent about one delivery through the outbox (the offline default), oldest first. */
export async function readDeliveryTexts(em: EntityManager, deliveryId: string): Promise<{ to: string; body: string; created_at: string }[]> {
  const rows = await em.execute<{ recipient: string; body: string; created_at: Date }[]>(
    'select recipient, body, created_at from sms_outbox where delivery_id = ? order by id',
    [deliveryId],
  );
  return rows.map((r) => ({ to: r.recipient, body: r.body, created_at: new Date(r.created_at).toISOString() }));
}

/** The last 100 texts sent to one number, newest first (`npm run ops -- outbox`). */
export async function readOutbox(em: EntityManager, to: string): Promise<{ to: string; body: string; created_at: string }[]> {
  const rows = await em.execute<{ recipient: string; body: string; created_at: Date }[]>(
    'select recipient, body, created_at from sms_outbox where recipient = ? order by id desc limit 100',
    [to],
  );
  return rows.map((r) => ({ to: r.recipient, body: r.body, created_at: new Date(r.created_at).toISOString() }));
}
