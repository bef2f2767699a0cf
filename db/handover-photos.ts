import type { EntityManager } from '@mikro-orm/postgresql';
import { FINAL_DROP } from '../domain/lifecycle';
import type { PhotoStore } from '../integrations/storage/photo-store';
import { putSandboxPhoto } from '../integrations/storage/sandbox-photo';

/**
 * Photos taken as proof of hand-over of `photo` deliveries: where each is stored, one per drop.
 * A rider's upload is kept apart (`handover_photo_uploads`, under a key of its own) until the
 * workflow decides on its hand-over: only the accepted one becomes the drop's photo.
 */

export interface StoredPhoto {
  deliveryId: string;
  position: number;
  storageKey: string;
  contentType: string;
  sizeBytes: number;
}

/** Records the photo of a drop; a later photo of the same drop takes its place, type and size included. */
export async function save(em: EntityManager, photo: StoredPhoto): Promise<void> {
  await em.execute(
    `insert into handover_photos (delivery_id, position, storage_key, content_type, size_bytes) values (?, ?, ?, ?, ?)
     on conflict (delivery_id, position) do update
       set storage_key = excluded.storage_key, content_type = excluded.content_type, size_bytes = excluded.size_bytes`,
    [photo.deliveryId, photo.position, photo.storageKey, photo.contentType, photo.sizeBytes],
  );
}

/** A rider's upload, recorded before its bytes are stored, so a file is never left unrecorded. */
export async function recordUpload(em: EntityManager, photo: StoredPhoto): Promise<void> {
  await em.execute(
    'insert into handover_photo_uploads (storage_key, delivery_id, position, content_type, size_bytes) values (?, ?, ?, ?, ?)',
    [photo.storageKey, photo.deliveryId, photo.position, photo.contentType, photo.sizeBytes],
  );
}

/**
 * The workflow accepted the hand-over that brought `storageKey`: its upload becomes the drop's
 * photo (a drop is handed over once, so there is none before it). Written again (a retried
 * activity), or for a photo that was never an upload (the sandbox rider's), it changes nothing.
 */
export async function keepAccepted(em: EntityManager, deliveryId: string, position: number, storageKey: string): Promise<void> {
  await em.execute(
    `with upload as (
       delete from handover_photo_uploads where storage_key = ? and delivery_id = ? and position = ?
       returning delivery_id, position, storage_key, content_type, size_bytes)
     insert into handover_photos (delivery_id, position, storage_key, content_type, size_bytes)
     select delivery_id, position, storage_key, content_type, size_bytes from upload
     on conflict (delivery_id, position) do update
       set storage_key = excluded.storage_key, content_type = excluded.content_type, size_bytes = excluded.size_bytes`,
    [storageKey, deliveryId, position],
  );
}

/**
 * Removes an upload nobody will keep (its hand-over refused, or never answered), record first so
 * no row is left pointing at a removed file; nothing when the workflow has kept it meanwhile.
 * True when it was removed.
 */
export async function discardUpload(em: EntityManager, photos: PhotoStore, storageKey: string): Promise<boolean> {
  const rows = await em.execute<{ storage_key: string }[]>('delete from handover_photo_uploads where storage_key = ? returning storage_key', [storageKey]);
  if (rows.length === 0) return false;
  await photos.delete(storageKey);
  return true;
}

/** Uploads no hand-over took or refused within `hours` (the API stopped before it heard): the oldest `limit`. */
export async function undecidedUploads(em: EntityManager, hours: number, limit = 500): Promise<string[]> {
  const rows = await em.execute<{ storage_key: string }[]>(
    `select storage_key from handover_photo_uploads where created_at < now() - make_interval(hours => ?) order by created_at limit ?`,
    [hours, limit],
  );
  return rows.map((row) => row.storage_key);
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
