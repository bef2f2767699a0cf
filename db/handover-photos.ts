import type { EntityManager } from '@mikro-orm/postgresql';
import { FINAL_DROP } from '../domain/lifecycle';
import type { PhotoStore } from '../integrations/storage/photo-store';
import { putSandboxPhoto } from '../integrations/storage/sandbox-photo';

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

/**
 * The sandbox rider's picture of a drop (robo or the partner's manual one), stored through the
 * photo store and recorded as a rider's upload is; returns its key. The same key on a retry.
 */
export async function keepSandboxPhoto(em: EntityManager, photos: PhotoStore, deliveryId: string, position: number): Promise<string> {
  const photo = await putSandboxPhoto(photos, deliveryId, position === FINAL_DROP ? 'final' : `stop-${position}`);
  await save(em, { deliveryId, position, ...photo });
  return photo.storageKey;
}
