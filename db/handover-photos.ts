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
