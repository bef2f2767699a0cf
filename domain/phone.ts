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
