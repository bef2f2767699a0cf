import type { EntityManager } from '@mikro-orm/postgresql';

/** Photos taken as proof of hand-over of `photo` deliveries: where each is stored, one per drop. */

/** Records the photo of a drop; a later photo of the same drop takes its place. */
export async function save(
  em: EntityManager,
  photo: { deliveryId: string; position: number; storageKey: string; contentType: string; sizeBytes: number },
): Promise<void> {
  await em.execute(
    `insert into handover_photos (delivery_id, position, storage_key, content_type, size_bytes) values (?, ?, ?, ?, ?)
     on conflict (delivery_id, position) do update set storage_key = excluded.storage_key`,
    [photo.deliveryId, photo.position, photo.storageKey, photo.contentType, photo.sizeBytes],
  );
}

/** The stored photo of a drop, or null when none is (the robo rider's, or one removed). */
export async function photoAt(em: EntityManager, deliveryId: string, position: number): Promise<{ storageKey: string; contentType: string } | null> {
  const [row] = await em.execute<{ storage_key: string; content_type: string }[]>(
    'select storage_key, content_type from handover_photos where delivery_id = ? and position = ?',
    [deliveryId, position],
  );
  return row ? { storageKey: row.storage_key, contentType: row.content_type } : null;
}
