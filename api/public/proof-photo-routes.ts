import { Router } from 'express';
import * as handoverPhotos from '../../db/handover-photos';
import type { AppDeps } from '../app-deps';
import { ApiError, requireUuid } from '../api-error';
import { createProofPhotoLinks, dropPosition, PROOF_PHOTO_PATH } from '../proof-photo-links';

/**
 * GET /proof-photos/{delivery_id}/{drop}: a hand-over photo, by a link the proof of delivery
 * signed (stores that sign their own links, S3, never point here). The signature is the
 * credential: no key is asked for, and the link stops working when it expires.
 */
export function createProofPhotoRouter(deps: AppDeps): Router {
  const { orm, photos } = deps;
  const router = Router();
  const links = createProofPhotoLinks(deps);

  router.get(`${PROOF_PHOTO_PATH}/:deliveryId/:drop`, async (req, res) => {
    const deliveryId = requireUuid(req.params.deliveryId, 'Unknown photo');
    const drop = req.params.drop as string;
    const position = dropPosition(drop);
    if (position === null) throw ApiError.notFound('Unknown photo');
    const { expires, signature } = req.query as { expires: string; signature: string };
    const check = await links.check(deliveryId, drop, expires, signature);
    if (check === 'forged') throw ApiError.forbidden('This photo link is not valid: read the proof of delivery for a signed one');
    if (check === 'expired') throw ApiError.forbidden('This photo link has expired: read the proof of delivery again for a fresh one', { expired: true });
    const photo = await handoverPhotos.photoAt(orm.em.fork(), deliveryId, position);
    const bytes = photo ? await photos.get(photo.storageKey) : null;
    if (!photo || !bytes) throw ApiError.notFound('Unknown photo');
    // A recipient's photo: no shared cache keeps it past the link's own life.
    res.setHeader('Cache-Control', 'private, no-store');
    res.type(photo.contentType).send(bytes);
  });

  return router;
}
