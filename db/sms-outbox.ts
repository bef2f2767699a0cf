import type { EntityManager } from '@mikro-orm/postgresql';
import type { OutboxStore } from '../integrations/sms/outbox';

/**
 * The SMS outbox, the offline default's store of texts (integrations/sms/outbox.ts sends to it),
 * read by a delivery's dashboard page, `npm run ops -- outbox` and the tests. It also keeps the
 * hand-over codes that were not texted (`withheld_reason`), for the partner's dashboard only.
 */

/** Why a text was kept back rather than sent: the partner's hourly text budget was spent. */
export type WithheldReason = 'hourly_budget';

/** A text about a delivery: sent to the outbox, or kept back (`withheld` says why). */
export interface DeliveryText {
  to: string;
  body: string;
  created_at: string;
  withheld: WithheldReason | null;
}

/** The outbox's store on the ORM; `em` is asked for an entity manager at each text. */
export function outboxStore(em: () => EntityManager): OutboxStore {
  return {
    async add({ to, body, deliveryId }) {
      await em().execute('insert into sms_outbox (recipient, body, delivery_id) values (?, ?, ?)', [to, body, deliveryId]);
    },
  };
}

/**
 * Keeps a text that was not sent (a hand-over code past the partner's hourly budget) where the
 * outbox keeps its texts, so the partner can read the code on the delivery's dashboard page.
 */
export async function keepWithheldText(em: EntityManager, text: { to: string; body: string; deliveryId: string; reason: WithheldReason }): Promise<void> {
  await em.execute('insert into sms_outbox (recipient, body, delivery_id, withheld_reason) values (?, ?, ?, ?)', [
    text.to,
    text.body,
    text.deliveryId,
    text.reason,
  ]);
}

/** The texts about one delivery in the outbox (the offline default's, and those kept back), oldest first. */
export async function readDeliveryTexts(em: EntityManager, deliveryId: string): Promise<DeliveryText[]> {
  const rows = await em.execute<{ recipient: string; body: string; created_at: Date; withheld_reason: WithheldReason | null }[]>(
    'select recipient, body, created_at, withheld_reason from sms_outbox where delivery_id = ? order by id',
    [deliveryId],
  );
  return rows.map((r) => ({ to: r.recipient, body: r.body, created_at: new Date(r.created_at).toISOString(), withheld: r.withheld_reason }));
}

/** The last 100 texts sent to one number, newest first (`npm run ops -- outbox`); texts kept back were sent to nobody. */
export async function readOutbox(em: EntityManager, to: string): Promise<{ to: string; body: string; created_at: string }[]> {
  const rows = await em.execute<{ recipient: string; body: string; created_at: Date }[]>(
    'select recipient, body, created_at from sms_outbox where recipient = ? and withheld_reason is null order by id desc limit 100',
    [to],
  );
  return rows.map((r) => ({ to: r.recipient, body: r.body, created_at: new Date(r.created_at).toISOString() }));
}
