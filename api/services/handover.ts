import type { Request } from 'express';
import { FINAL_DROP, hashHandoverCode } from '../../domain/handover-code';
import type { HandoverProof } from '../../workflows/messages';
import type { AppDeps } from '../deps';
import { ApiError } from '../errors';

/** A multipart file as the upload parser leaves it on the request. */
interface UploadedFile {
  fieldname: string;
  size: number;
  buffer: Buffer;
}

/** Photo types and size accepted as proof of hand-over (the upload parser enforces the size: 413). */
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export const PHOTO_MAX_BYTES = 5 * 1024 * 1024;

/**
 * The photo's type by its leading bytes, or null when it is none of the accepted ones. The bytes
 * decide, not the part's declared type: a rider app or `curl -F photo=@file` may label a photo
 * `application/octet-stream`, and a renamed text file labelled `image/png` is still no photo.
 */
function imageType(bytes: Buffer): (typeof PHOTO_TYPES)[number] | null {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

/**
 * Checks the proof a rider brings to a hand-over, before the workflow is told. The code is
 * checked against its hash in Postgres and never enters workflow history. Wrong codes are
 * counted; after `otpMaxAttempts` the stop is locked for `otpLockSeconds`, then tries resume.
 */
export async function checkHandoverProof(
  { orm, photos, settings }: AppDeps,
  req: Request,
  delivery: { id: string; verificationMethod: string },
  position: number,
): Promise<HandoverProof> {
  if (delivery.verificationMethod === 'otp') {
    const otp = (req.body as { otp?: unknown } | undefined)?.otp;
    if (typeof otp !== 'string' || otp.length === 0) throw ApiError.badRequest('The recipient’s code is required', { otp: 'is required' });
    const em = orm.em.fork();
    const hash = hashHandoverCode(delivery.id, position, otp.trim());
    // The try is counted and compared in one statement, under the row's lock: tries sent at once
    // (to one API process or several) are taken one after another, so the lock holds after
    // `otpMaxAttempts` wrong codes. Read first and written after, every try sent together would
    // pass the read before any was counted.
    const [tried] = await em.execute<{ matched: boolean }[]>(
      `update delivery_otps set
         locked_until = case when code_hash <> ? and failed_attempts + 1 >= ? then now() + (? || ' seconds')::interval else locked_until end,
         failed_attempts = case when code_hash = ? then failed_attempts when failed_attempts + 1 >= ? then 0 else failed_attempts + 1 end
       where delivery_id = ? and position = ? and (locked_until is null or locked_until <= now())
       returning code_hash = ? as matched`,
      [hash, settings.otpMaxAttempts, String(settings.otpLockSeconds), hash, settings.otpMaxAttempts, delivery.id, position, hash],
    );
    if (!tried) {
      const [issued] = await em.execute<{ position: number }[]>('select position from delivery_otps where delivery_id = ? and position = ?', [
        delivery.id,
        position,
      ]);
      if (!issued) throw ApiError.badRequest('No code was issued for this hand-over yet; try again in a moment', { otp: 'not issued yet' });
      throw ApiError.badRequest('Too many wrong codes; try again later', { otp: 'locked for a while after wrong tries' });
    }
    if (!tried.matched) throw ApiError.badRequest('The code is wrong', { otp: 'does not match' });
    return { kind: 'otp' };
  }
  if (delivery.verificationMethod === 'photo') {
    const files = (req as Request & { files?: UploadedFile[] }).files ?? [];
    const photo = files.find((f) => f.fieldname === 'photo');
    if (!photo) throw ApiError.badRequest('A photo of the hand-over is required', { photo: 'is required (multipart field "photo")' });
    const type = imageType(photo.buffer);
    if (!type) throw ApiError.badRequest('The photo must be a JPEG, PNG or WebP image', { photo: 'must be image/jpeg, image/png or image/webp' });
    const name = `${delivery.id}-${position === FINAL_DROP ? 'final' : `stop-${position}`}-${Date.now()}.${type.split('/')[1]}`;
    const storageKey = await photos.put(name, photo.buffer, type);
    await orm.em.fork().execute(
      `insert into handover_photos (delivery_id, position, storage_key, content_type, size_bytes) values (?, ?, ?, ?, ?)
       on conflict (delivery_id, position) do update set storage_key = excluded.storage_key`,
      [delivery.id, position, storageKey, type, photo.size],
    );
    return { kind: 'photo', storageKey };
  }
  return { kind: 'none' };
}
