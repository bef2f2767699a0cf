import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Settings } from '../config/settings';
import { keepPhotoLinkKey } from '../db/signing-keys';
import { FINAL_DROP } from '../domain/lifecycle';
import type { PhotoStore } from '../integrations/storage/photo-store';

/** Where the API serves a photo by a link it signed itself (api/public/proof-photo-routes.ts). */
export const PROOF_PHOTO_PATH = '/proof-photos';

/** A drop as a link names it: `final`, or `stop-<index>`. */
export function dropName(position: number): string {
  return position === FINAL_DROP ? 'final' : `stop-${position}`;
}

/** The position a link's drop names, or null when it names none. */
export function dropPosition(drop: string): number | null {
  if (drop === 'final') return FINAL_DROP;
  const stop = /^stop-([0-9])$/.exec(drop);
  return stop ? Number(stop[1]) : null;
}

export type LinkCheck = 'valid' | 'expired' | 'forged';

/**
 * Links to hand-over photos that work without the partner's key, for PROOF_LINK_MINUTES from the
 * read that made them. A store that signs its own (S3) gives them; for local files the API signs
 * a link to its own route: an HMAC of the delivery, the drop and the expiry, under a key kept in
 * the database, so every API process checks what any other signed.
 */
export function createProofPhotoLinks(
  { orm, settings, photos }: { orm: MikroORM; settings: Settings; photos: PhotoStore },
  now: () => number = Date.now,
) {
  let key: Promise<Buffer> | null = null;
  const signingKey = (): Promise<Buffer> =>
    (key ??= keepPhotoLinkKey(orm.em.fork(), randomBytes(32).toString('base64url')).then(
      (value) => {
        if (value === null) throw new Error('The photo-link key is missing');
        return Buffer.from(value, 'base64url');
      },
      (error: unknown) => {
        key = null;
        throw error;
      },
    ));

  const signature = async (deliveryId: string, drop: string, expires: string): Promise<Buffer> =>
    createHmac('sha256', await signingKey()).update(`${deliveryId}\n${drop}\n${expires}`).digest();

  return {
    /** A fresh link to the photo of a drop: signed now, for PROOF_LINK_MINUTES. */
    async linkTo(deliveryId: string, position: number, storageKey: string): Promise<string> {
      const seconds = settings.proofLinkMinutes * 60;
      if (photos.signedUrl) return photos.signedUrl(storageKey, seconds);
      const drop = dropName(position);
      const expires = String(Math.ceil(now() / 1000 + seconds));
      const signed = (await signature(deliveryId, drop, expires)).toString('base64url');
      const query = new URLSearchParams({ expires, signature: signed });
      return `${settings.siteUrl}/api/v1${PROOF_PHOTO_PATH}/${deliveryId}/${drop}?${query.toString()}`;
    },

    /** Whether a link is one this service signed, and still within its time. */
    async check(deliveryId: string, drop: string, expires: string, given: string): Promise<LinkCheck> {
      const expected = await signature(deliveryId, drop, expires);
      const received = Buffer.from(given, 'base64url');
      // Only the one spelling of it: base64 decoding ignores stray characters and spare bits.
      const canonical = received.toString('base64url') === given;
      // Compared in constant time; a signature of another length is no signature of ours.
      if (!canonical || received.length !== expected.length || !timingSafeEqual(received, expected)) return 'forged';
      return Number(expires) * 1000 > now() ? 'valid' : 'expired';
    },
  };
}

export type ProofPhotoLinks = ReturnType<typeof createProofPhotoLinks>;
