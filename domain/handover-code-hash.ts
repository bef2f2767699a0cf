import { createHash } from 'node:crypto';

export { FINAL_DROP } from './lifecycle';

/**
 * Only this hash of a recipient's hand-over code is stored. It is bound to the delivery and the
 * drop, so a code is right for its own hand-over only. Written when the code is texted (activities)
 * and compared when a rider brings it (API).
 */
export function hashHandoverCode(deliveryId: string, position: number, code: string): string {
  return createHash('sha256').update(`${deliveryId}:${position}:${code}`).digest('hex');
}
