import { FINAL_DROP } from './lifecycle';

/** New details of one drop: its recipient, and its parcel's description (null clears it). */
export interface DropContactChange {
  recipientName?: string;
  recipientPhone?: string;
  packageDescription?: string | null;
}

/** A partner's change of a booking's contacts: the final drop's, and each additional stop's by index. */
export interface ContactChange extends DropContactChange {
  stops: (DropContactChange & { index: number })[];
}

/** Whether the change names any field of the final drop's own. */
export function changesFinalDrop({ recipientName, recipientPhone, packageDescription }: DropContactChange): boolean {
  return recipientName !== undefined || recipientPhone !== undefined || packageDescription !== undefined;
}

/** The drops a change touches: each stop by index, then FINAL_DROP when it names the final drop. */
export function dropsTouched(change: ContactChange): number[] {
  return [...change.stops.map((stop) => stop.index), ...(changesFinalDrop(change) ? [FINAL_DROP] : [])];
}
