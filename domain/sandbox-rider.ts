import type { VerificationMethod } from './lifecycle';

/**
 * Who rides a test-mode delivery. `robo` (the default): the robo rider, a child workflow, takes
 * every step by itself. `manual`: nobody does until the partner asks for each step
 * (`POST /partner/deliveries/{id}/simulate`), sent as the same update a rider's request becomes.
 * A booking chooses with the `Sandbox-Rider` header; live bookings have real riders only.
 */
export const SANDBOX_RIDERS = ['robo', 'manual'] as const;
export type SandboxRider = (typeof SANDBOX_RIDERS)[number];

/** The header a test-mode booking names its sandbox rider with. */
export const SANDBOX_RIDER_HEADER = 'Sandbox-Rider';

/** The steps a partner can ask of a manual sandbox rider: a rider app's, and the dispatch deadline's. */
export const SANDBOX_STEPS = ['accept', 'pickup', 'depart', 'complete_stop', 'deliver', 'expire'] as const;
export type SandboxStep = (typeof SANDBOX_STEPS)[number];

/** The name a manual sandbox rider goes by in the record and on the tracking page. */
export const MANUAL_SANDBOX_RIDER_NAME = 'Sandbox Rider';

/**
 * The proof a sandbox rider brings to a hand-over: verification passes by itself, as it does for
 * the robo rider. For a code, the issued code's own hash; null while none is issued yet (codes are
 * texted beside dispatch). For a photo, the sandbox picture stored for the drop
 * (integrations/storage/sandbox-photo.ts).
 */
export type SandboxProof = { kind: 'none' } | { kind: 'otp'; codeHash: string } | { kind: 'photo'; storageKey: string };

export function sandboxProof(method: VerificationMethod, issued: { codeHash: string | null; photoKey: string | null }): SandboxProof | null {
  if (method === 'photo') return issued.photoKey === null ? null : { kind: 'photo', storageKey: issued.photoKey };
  if (method !== 'otp') return { kind: 'none' };
  return issued.codeHash === null ? null : { kind: 'otp', codeHash: issued.codeHash };
}
