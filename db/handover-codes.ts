import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The recipients' hand-over codes of `otp` deliveries, one per stop and one for the final drop.
 * Only their hashes are kept.
 */

/** Keeps a code's hash; false when the stop already has one (a retry issues nothing twice). */
export async function issue(em: EntityManager, deliveryId: string, position: number, codeHash: string): Promise<boolean> {
  const inserted = await em.execute<{ position: number }[]>(
    `insert into delivery_otps (delivery_id, position, code_hash) values (?, ?, ?)
     on conflict do nothing returning position`,
    [deliveryId, position, codeHash],
  );
  return inserted.length > 0;
}

/** Drops a code that was never sent, so the next try issues a fresh one. */
export async function withdraw(em: EntityManager, deliveryId: string, position: number): Promise<void> {
  await em.execute('delete from delivery_otps where delivery_id = ? and position = ?', [deliveryId, position]);
}

/** The hash of the code issued for this hand-over; null when none is issued (yet). */
export async function issuedHash(em: EntityManager, deliveryId: string, position: number): Promise<string | null> {
  const [issued] = await em.execute<{ code_hash: string }[]>('select code_hash from delivery_otps where delivery_id = ? and position = ?', [
    deliveryId,
    position,
  ]);
  return issued?.code_hash ?? null;
}
