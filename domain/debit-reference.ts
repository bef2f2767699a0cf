import { isUuid } from './uuid';

/**
 * A debit's reference towards the gateway, which never debits one reference twice: the delivery
 * id for the booking's debit (`changeSeq` 0), `<delivery id>.<n>` for the debit of its n-th fare
 * change. Paystack takes letters, digits, `-`, `.` and `=` in a reference.
 */
export function debitReference(deliveryId: string, changeSeq = 0): string {
  return changeSeq === 0 ? deliveryId : `${deliveryId}.${changeSeq}`;
}

/** The delivery and fare change a reference names; null when it is not one of ours. */
export function parseDebitReference(reference: string): { deliveryId: string; changeSeq: number } | null {
  const [deliveryId = '', seq, ...rest] = reference.split('.');
  if (rest.length > 0 || !isUuid(deliveryId)) return null;
  if (seq === undefined) return { deliveryId, changeSeq: 0 };
  return /^[1-9][0-9]{0,8}$/.test(seq) ? { deliveryId, changeSeq: Number(seq) } : null;
}
