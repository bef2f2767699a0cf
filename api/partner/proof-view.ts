import * as handoverProof from '../../db/handover-proof';
import { FINAL_DROP, type VerificationMethod } from '../../domain/lifecycle';
import type { AppDeps } from '../app-deps';
import type { Handover } from '../openapi/schemas';
import { createProofPhotoLinks } from '../proof-photo-links';

/**
 * A delivery's proof of delivery as the partner reads it (the API and the dashboard): one entry
 * per hand-over done, each stop then the final drop, with a photo link signed afresh on each read.
 */
export function createProofView(deps: AppDeps) {
  const links = createProofPhotoLinks(deps);
  return async (delivery: { id: string; verificationMethod: VerificationMethod }): Promise<Handover[]> => {
    const handovers = await handoverProof.handoversOf(deps.orm.em.fork(), delivery.id);
    return Promise.all(
      handovers.map(async (h) => ({
        stop_index: h.position === FINAL_DROP ? null : h.position,
        method: delivery.verificationMethod,
        verified_at: h.handedOverAt,
        lat: h.lat,
        lng: h.lng,
        photo_url: delivery.verificationMethod === 'photo' && h.photo ? await links.linkTo(delivery.id, h.position, h.photo.storageKey) : null,
      })),
    );
  };
}
