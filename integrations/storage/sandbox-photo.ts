import { Readable } from 'node:stream';
import type { PhotoStore } from './photo-store';

/**
 * The picture a sandbox rider (the robo rider, or the partner's manual one) hands over at a
 * `photo` drop: a 32 × 32 PNG of a parcel, stored like a rider's upload so the proof of delivery of
 * a test delivery has a real photo behind its signed link, served with its content type.
 */
const PARCEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAARElEQVR42mP4TzR4dqIHjojXxTBqAUkW5LnJUQXhs2BDlQMuhOwDPMpGLRi1YNSCUQtGLRi1YNSCUQto32wZbToOiAUAlrxiOW4io94AAAAASUVORK5CYII=',
  'base64',
);

/** Stores the sandbox photo of one drop under a name of its own (the same name on a retry). */
export async function putSandboxPhoto(photos: PhotoStore, deliveryId: string, drop: string): Promise<{ storageKey: string; contentType: string; sizeBytes: number }> {
  const contentType = 'image/png';
  const storageKey = await photos.put(`${deliveryId}-${drop}-sandbox.png`, Readable.from([PARCEL_PNG]), contentType);
  return { storageKey, contentType, sizeBytes: PARCEL_PNG.length };
}
