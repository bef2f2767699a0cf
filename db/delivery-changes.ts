import type { EntityManager } from '@mikro-orm/postgresql';
import { debitReference } from '../domain/debit-reference';
import type { DeliveryChange, DropChange, Repricing } from '../domain/delivery-change';

/** The columns a drop's change sets, in SQL, with their values: only the fields the change names. */
function assignments(change: DropChange): { sql: string[]; values: unknown[] } {
  const columns: [string, unknown][] = [
    ['recipient_name', change.recipientName],
    ['recipient_phone', change.recipientPhone],
    ['package_description', change.packageDescription],
    ['dropoff_address', change.address],
    ['dropoff_lat', change.point?.lat],
    ['dropoff_lng', change.point?.lng],
  ];
  const named = columns.filter(([, value]) => value !== undefined);
  return { sql: named.map(([column]) => `${column} = ?`), values: named.map(([, value]) => value) };
}

/** A re-pricing as recorded: its number among the delivery's, and the debit it calls for, if any. */
export interface RecordedFareChange {
  seq: number;
  /** Pesewas: what the new fare exceeds every fare before it by, or 0 (nothing is refunded). */
  debitAmount: number;
  /** The debit's gateway reference; null when there is nothing to debit. */
  debitReference: string | null;
}

/**
 * Writes a partner's change in one transaction: the final drop's on the delivery, each stop's on
 * its row and, for a route priced again, the new fare and a `fare_changes` line that keeps the fare
 * before it. The delivery's row lock orders it with any other change and with the booking debit's
 * request (which reads the fare as booked from the first line). The row is touched either way, so
 * every kept answer about the delivery (its version) is read afresh, and a moved route's ETA is due
 * again. Retried after its commit, it finds its fare change by id and records nothing twice.
 */
export async function applyDeliveryChange(em: EntityManager, deliveryId: string, change: DeliveryChange): Promise<RecordedFareChange | null> {
  return em.transactional(async (tx) => {
    const [current] = await tx.execute<{ total_fare: number }[]>('select total_fare from deliveries where id = ? for update', [deliveryId]);
    if (!current) throw new Error(`Delivery ${deliveryId} was not found`);
    const own = assignments(change);
    let fareChange: RecordedFareChange | null = null;
    if (change.repricing) {
      fareChange = await recordFareChange(tx, deliveryId, current.total_fare, change.repricing);
      const { fare } = change.repricing;
      own.sql.push('base_fare = ?', 'distance_m = ?', 'distance_fee = ?', 'service_fee = ?', 'total_fare = ?');
      own.values.push(fare.baseFare, fare.distanceMeters, fare.distanceFee, fare.serviceFee, fare.totalFare);
      await tx.execute('update delivery_etas set computed_at = null where delivery_id = ?', [deliveryId]);
    }
    await tx.execute(`update deliveries set ${[...own.sql, 'updated_at = now()'].join(', ')} where id = ?`, [...own.values, deliveryId]);
    for (const stop of change.stops) {
      const { sql, values } = assignments(stop);
      if (sql.length === 0) continue;
      await tx.execute(`update delivery_stops set ${sql.join(', ')} where delivery_id = ? and position = ?`, [...values, deliveryId, stop.index]);
    }
    return fareChange;
  });
}

/**
 * The debit is what the new fare exceeds the highest fare asked so far by (`fareAsked`: the fare
 * now, and every fare before and after each change), so a rise after a fall takes nothing twice.
 */
async function recordFareChange(tx: EntityManager, deliveryId: string, previousTotal: number, { changeId, fare }: Repricing): Promise<RecordedFareChange> {
  const [recorded] = await tx.execute<{ seq: number; debit_amount: number }[]>(
    `with inserted as (
       insert into fare_changes (delivery_id, seq, change_id, previous_total_fare, total_fare, debit_amount)
       select ?, coalesce(max(seq), 0) + 1, ?, ?, ?,
              greatest(?::int - greatest(?::int, coalesce(max(previous_total_fare), 0), coalesce(max(total_fare), 0)), 0)
       from fare_changes where delivery_id = ?
       on conflict (change_id) do nothing
       returning seq, debit_amount)
     select seq, debit_amount from inserted
     union all
     select seq, debit_amount from fare_changes where change_id = ? and not exists (select 1 from inserted)`,
    [deliveryId, changeId, previousTotal, fare.totalFare, fare.totalFare, previousTotal, deliveryId, changeId],
  );
  if (!recorded) throw new Error(`Fare change ${changeId} could not be recorded`);
  const debitAmount = Number(recorded.debit_amount);
  return { seq: recorded.seq, debitAmount, debitReference: debitAmount > 0 ? debitReference(deliveryId, recorded.seq) : null };
}
