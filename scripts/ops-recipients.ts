import type { MikroORM } from '@mikro-orm/postgresql';
import { redactDeliveries } from '../activities/retention';
import * as deliveries from '../db/deliveries';
import { deliveriesOfRecipient } from '../db/retention';
import { isTerminal } from '../domain/lifecycle';
import type { PhotoStore } from '../integrations/storage/photo-store';

/**
 * The operator's answer to a recipient who asks for their data to be removed (`npm run ops --
 * recipient:forget`): their deliveries are redacted now, as the retention round would redact them
 * RETENTION_DAYS after they ended (activities/retention.ts). A job still under way keeps them: its
 * rider needs the name and the number to hand the parcel over.
 */

/** Every finished delivery naming this phone at its drop-off or a stop; those under way are listed, untouched. */
export async function forgetRecipientPhone(
  deps: { orm: MikroORM; photos: PhotoStore },
  phone: string,
): Promise<{ redacted: string[]; still_active: string[] }> {
  const { finished, active } = await deliveriesOfRecipient(deps.orm.em.fork(), phone);
  return { redacted: await redactDeliveries(deps, finished), still_active: active };
}

/** One delivery's recipients, once it has ended; refused (an Error saying why) while it is under way. */
export async function forgetDeliveryRecipients(deps: { orm: MikroORM; photos: PhotoStore }, deliveryId: string): Promise<{ delivery_id: string; redacted: true }> {
  const status = await deliveries.statusOf(deps.orm.em.fork(), deliveryId);
  if (status === null) throw new Error('Unknown delivery');
  if (!isTerminal(status)) {
    throw new Error(`The delivery is ${status}: its rider needs the recipients' names and numbers until it ends; run this again once it has`);
  }
  // One redacted before is redacted still: the answer is the same.
  await redactDeliveries(deps, [deliveryId]);
  return { delivery_id: deliveryId, redacted: true };
}
