/**
 * How a call to a masked number is routed, by the local bridge and the number pool alike: the
 * session the dialled number (and, for the pool, the caller) finds, the one rule that decides
 * whether it is put through, and what is recorded of each call.
 */

/** A session as a call through its masked number finds it; `jobActive` is read from our own Postgres. */
export interface RoutedSession {
  sessionId: string;
  recipientPhone: string;
  expiresAt: Date;
  closed: boolean;
  jobActive: boolean;
}

/** A call placed through a masked number, bridged or refused (with why). */
export interface PlacedCall {
  sessionId: string | null;
  dialled: string;
  caller: string | null;
  bridgedTo: string | null;
  refused: string | null;
}

export type CallOutcome = { bridged: true; to: string } | { bridged: false; reason: string };

/**
 * Why a call is not put through, or null when it is. A session bridges only while it is open,
 * unexpired and its job still the rider's and active.
 */
export function callRefusal(session: RoutedSession | null, now: Date = new Date()): string | null {
  if (!session) return 'no session on this number';
  if (session.closed) return 'the session is closed';
  if (session.expiresAt.getTime() <= now.getTime()) return 'the session has expired';
  if (!session.jobActive) return 'the job is no longer active';
  return null;
}
