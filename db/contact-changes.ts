import type { EntityManager } from '@mikro-orm/postgresql';
import type { ContactChange, DropContactChange } from '../domain/contact-change';

/** The columns a drop's change sets, in SQL, with their values: only the fields the change names. */
function assignments(change: DropContactChange): { sql: string[]; values: unknown[] } {
  const columns: [string, unknown][] = [
    ['recipient_name', change.recipientName],
    ['recipient_phone', change.recipientPhone],
    ['package_description', change.packageDescription],
  ];
  const named = columns.filter(([, value]) => value !== undefined);
  return { sql: named.map(([column]) => `${column} = ?`), values: named.map(([, value]) => value) };
}

/**
 * Writes a partner's change of recipients in one transaction: the final drop's on the delivery,
 * each stop's on its row. The delivery's row is touched either way, so every kept answer about it
 * (its version) is read afresh. Written again as it stands when the activity is retried.
 */
export async function applyContactChange(em: EntityManager, deliveryId: string, change: ContactChange): Promise<void> {
  await em.transactional(async (tx) => {
    const own = assignments(change);
    await tx.execute(`update deliveries set ${[...own.sql, 'updated_at = now()'].join(', ')} where id = ?`, [...own.values, deliveryId]);
    for (const stop of change.stops) {
      const { sql, values } = assignments(stop);
      if (sql.length === 0) continue;
      await tx.execute(`update delivery_stops set ${sql.join(', ')} where delivery_id = ? and position = ?`, [...values, deliveryId, stop.index]);
    }
  });
}
