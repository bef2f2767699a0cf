import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Request } from 'express';
import * as handoverPhotos from '../../db/handover-photos';
import { FINAL_DROP, hashHandoverCode } from '../../domain/handover-code-hash';
import type { VerificationMethod } from '../../domain/lifecycle';
import { PHOTO_TYPES } from '../../domain/limits';
import type { ProofKind } from '../../domain/steps';
import type { HandoverProof } from '../../workflows/messages';
import { photoKeyOf } from '../../integrations/storage/photo-store';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import type { StagedUpload } from './photo-staging';

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

type WithFiles = Request & { files?: StagedUpload[] };

function typedCode(req: Request): string | null {
  const otp = (req.body as { otp?: unknown } | undefined)?.otp;
  return typeof otp === 'string' && otp.length > 0 ? otp.trim() : null;
}

function uploadedPhoto(req: Request): StagedUpload | undefined {
  return ((req as WithFiles).files ?? []).find((f) => f.fieldname === 'photo');
}

/** Whether the request carries the proof the booking asked for, for the step's rules (domain/steps.ts). */
export function proofBrought(req: Request, method: VerificationMethod): ProofKind {
  if (method === 'otp') return typedCode(req) === null ? 'none' : 'otp';
  if (method === 'photo') return uploadedPhoto(req) ? 'photo' : 'none';
  return 'none';
}

/**
 * Reads the proof a rider brings to a hand-over, for the workflow to check: a code as its hash
 * (the code itself never enters workflow history), a photo stored first and named by its key.
 * The step's rules have already refused a request without the proof the booking asked for.
 */
export async function readHandoverProof(
  { orm, photos }: AppDeps,
  req: Request,
  delivery: { id: string; verificationMethod: VerificationMethod },
  position: number,
): Promise<HandoverProof> {
  const code = typedCode(req);
  if (delivery.verificationMethod === 'otp' && code !== null) {
    // Only the hash reaches the workflow, which compares it and counts wrong tries.
    return { kind: 'otp', codeHash: hashHandoverCode(delivery.id, position, code) };
  }
  const photo = uploadedPhoto(req);
  if (delivery.verificationMethod === 'photo' && photo) {
    // The leading bytes were kept as the upload streamed past; the photo is not read back for them.
    const type = imageType(photo.head);
    if (!type) throw ApiError.badRequest('The photo must be a JPEG, PNG or WebP image', { photo: 'must be image/jpeg, image/png or image/webp' });
    // Each try under a key of its own: two hand-overs racing never write one file, and only the
    // one the workflow accepts becomes the drop's photo (db/handover-photos.ts).
    const name = `${delivery.id}-${position === FINAL_DROP ? 'final' : `stop-${position}`}-${randomUUID()}.${type.split('/')[1]}`;
    const upload = { deliveryId: delivery.id, position, contentType: type, sizeBytes: photo.size };
    // Recorded first, so a file stored by a request that then stops is still found and removed.
    await handoverPhotos.recordUpload(orm.em.fork(), { ...upload, storageKey: photoKeyOf(name) });
    const storageKey = await photos.put(name, createReadStream(photo.path), type);
    return { kind: 'photo', storageKey };
  }
  return { kind: 'none' };
}

/**
 * Sends a hand-over with its proof; a photo whose hand-over the workflow refused is removed, file
 * and record. Without an answer (Temporal unreachable) the photo stays an upload until the
 * retention round, since the hand-over may still be taken.
 */
export async function handOverWith<T>({ orm, photos }: AppDeps, proof: HandoverProof, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    const refused = error instanceof ApiError && error.status < 500;
    if (proof.kind === 'photo' && refused) await handoverPhotos.discardUpload(orm.em.fork(), photos, proof.storageKey);
    throw error;
  }
}
