import type { MobileMoneyProvider } from './gateway';

/**
 * The operators' published number ranges: the two digits after +233. Numbers are portable in
 * Ghana, so a real gateway's answer decides; the ranges are the sandbox's truth and a fallback.
 */
export const NETWORK_PREFIXES: Record<MobileMoneyProvider, readonly string[]> = {
  network_a: ['24', '25', '53', '54', '55', '59'],
  network_b: ['20', '50'],
  network_c: ['23', '26', '27', '56', '57'],
};

export function networkOf(phone: string): MobileMoneyProvider | null {
  if (!/^\+233\d{9}$/.test(phone)) return null;
  const prefix = phone.slice(4, 6);
  for (const [provider, prefixes] of Object.entries(NETWORK_PREFIXES)) {
    if (prefixes.includes(prefix)) return provider as MobileMoneyProvider;
  }
  return null;
}
