import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * Ghana numbers in the contract's form `+233XXXXXXXXX`, checked against libphonenumber's
 * metadata (so a number in an unallocated range is refused, not just a wrong length).
 */
export function isGhanaPhone(phone: string): boolean {
  if (!/^\+233\d{9}$/.test(phone)) return false;
  const parsed = parsePhoneNumberFromString(phone);
  return parsed !== undefined && parsed.country === 'GH' && parsed.isValid();
}

/** True for Ghana mobile numbers (Mobile Money accounts must be mobile). */
export function isGhanaMobile(phone: string): boolean {
  if (!isGhanaPhone(phone)) return false;
  const type = parsePhoneNumberFromString(phone)?.getType();
  return type === 'MOBILE' || type === 'FIXED_LINE_OR_MOBILE';
}

/**
 * A Ghana number as people type it (`024 123 4567`, `0241-230-001`, `233241234567`) in the
 * contract's form `+233241234567`. Anything it does not recognise is returned compacted, for the
 * caller's own check to refuse.
 */
export function normaliseGhanaPhone(input: string): string {
  const compact = input.replace(/[\s().-]/g, '');
  if (/^0\d{9}$/.test(compact)) return `+233${compact.slice(1)}`;
  if (/^233\d{9}$/.test(compact)) return `+${compact}`;
  return compact;
}
