import { isGhanaPhone } from '../../domain/phone';
import { networkOf } from '../../integrations/mobile-money/networks';

/**
 * A Ghana number someone can be called or paid on: valid by libphonenumber's metadata, or in an
 * operator's published mobile range where that metadata lags behind (`+23325…`).
 */
export function isKnownGhanaNumber(phone: string): boolean {
  return isGhanaPhone(phone) || networkOf(phone) !== null;
}

/**
 * Formats of our own, checked by the request validator together with every other rule of a
 * body, so a request with several faults hears of all of them at once, the phone numbers too.
 */
export const FORMATS = { 'ghana-phone': isKnownGhanaNumber };

/** What the validator says of a value outside one of our formats, in words a partner reads. */
export const FORMAT_MESSAGES: Record<string, string> = {
  'must match format "ghana-phone"': 'is not a valid Ghana phone number',
};
