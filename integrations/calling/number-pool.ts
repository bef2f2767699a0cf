import { normaliseGhanaPhone } from '../../domain/phone';
import { callRefusal, type CallOutcome, type PlacedCall, type RoutedSession } from './call-routing';
import type { CallMasking, CallSession, OpenCallSession } from './masking';
import { choosePoolNumber } from './pool-number-choice';
import { CallProviderUnavailableError } from './twilio-proxy';

/** Which job's recipient, called by which rider: one session each. */
export interface PoolSessionKey {
  jobId: string;
  stopIndex: number;
  riderId: string;
}

/** A session of the pool as we keep it: the rider's phone and the pool number lead to the recipient. */
export interface PoolSession {
  sessionId: string;
  recipientPhone: string;
  riderPhone: string;
  poolNumber: string;
  expiresAt: Date;
}

/** Where the pool's sessions and calls are kept: our own Postgres (db/call-sessions.ts). */
export interface NumberPoolStore {
  /** The key's session while it is open and unexpired; null otherwise. */
  current(key: PoolSessionKey): Promise<PoolSession | null>;
  /** Closes the caller's sessions that ran out or whose job is no longer theirs and active: their numbers are free again. */
  releaseStale(riderPhone: string): Promise<void>;
  /** The pool numbers the caller holds in open sessions other than the key's, and how many open sessions each number serves. */
  usage(riderPhone: string, key: PoolSessionKey): Promise<{ heldByCaller: string[]; openSessions: Map<string, number> }>;
  /**
   * Records the key's session on this number, replacing one that is closed, expired or for
   * another phone or recipient, and answers the key's session as it now stands; null when the
   * caller took this number in another session meanwhile (or a concurrent claim is not yet visible).
   */
  claim(key: PoolSessionKey, session: Omit<PoolSession, 'sessionId'>): Promise<PoolSession | null>;
  closeAll(jobId: string): Promise<void>;
  /** The caller's session on the dialled number: the open one, else the one closed last. */
  route(caller: string, dialled: string): Promise<RoutedSession | null>;
  record(call: PlacedCall): Promise<void>;
}

/** Answers a voice provider's incoming call: who a call from `caller` to the pool number `dialled` reaches. */
export interface IncomingCallRouter {
  routeCall(caller: string, dialled: string): Promise<CallOutcome>;
}

/** Whether this masked-calling provider answers incoming calls itself (the number pool does). */
export function routesIncomingCalls(calling: CallMasking): calling is CallMasking & IncomingCallRouter {
  return typeof (calling as Partial<IncomingCallRouter>).routeCall === 'function';
}

export interface NumberPoolOptions {
  /** The rented numbers, in E.164, in the operator's order of preference. */
  numbers: readonly string[];
  /** A session outlives no job (the job's end refuses it too); this only caps a forgotten one. */
  sessionHours?: number;
}

/** Claims lost to a concurrent view of the same rider's job before the request gives up. */
const CLAIM_ATTEMPTS = 5;

/**
 * Masked calls through numbers the operator rents from a voice provider (Africa's Talking,
 * Twilio Programmable Voice), the way ride-hailing operators build them: the rider is given a
 * pool number per recipient; the provider asks our callback what to do with each call, and a
 * call from the rider's own phone to that number is put through to the recipient while the job
 * is the rider's and active. The caller is known by their phone, so a rider without one on
 * record (riders.phone) is given no number: the rider app then shows no call button.
 */
export class NumberPoolCalling implements CallMasking, IncomingCallRouter {
  private readonly sessionMs: number;

  constructor(
    private readonly store: NumberPoolStore,
    private readonly options: NumberPoolOptions,
  ) {
    this.sessionMs = (options.sessionHours ?? 12) * 3_600_000;
  }

  async openSession(input: OpenCallSession): Promise<CallSession | null> {
    if (!input.riderPhone) return null;
    const key = { jobId: input.jobId, stopIndex: input.stopIndex, riderId: input.riderId };
    let released = false;
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      // A live session is read, not written: the rider app reads its job every few seconds.
      const known = await this.store.current(key);
      if (known && known.riderPhone === input.riderPhone && known.recipientPhone === input.recipientPhone) return asCallSession(known);
      if (!released) {
        await this.store.releaseStale(input.riderPhone);
        released = true;
      }
      const poolNumber = choosePoolNumber(this.options.numbers, await this.store.usage(input.riderPhone, key));
      if (!poolNumber) {
        throw new CallProviderUnavailableError(
          `Number pool unavailable: the rider holds all ${this.options.numbers.length} pool numbers in open sessions; rent more (CALL_POOL_NUMBERS)`,
        );
      }
      const expiresAt = new Date(Date.now() + this.sessionMs);
      const claimed = await this.store.claim(key, { recipientPhone: input.recipientPhone, riderPhone: input.riderPhone, poolNumber, expiresAt });
      if (claimed) return asCallSession(claimed);
    }
    throw new CallProviderUnavailableError('Number pool unavailable: every pool number the rider could take was taken by a concurrent request');
  }

  async closeSessions(jobId: string): Promise<void> {
    await this.store.closeAll(jobId);
  }

  async routeCall(caller: string, dialled: string): Promise<CallOutcome> {
    // Providers write numbers in international form; a Ghana number written otherwise still matches.
    const from = normaliseGhanaPhone(caller);
    const session = await this.store.route(from, dialled);
    const refused = callRefusal(session);
    const bridgedTo = session && !refused ? session.recipientPhone : null;
    await this.store.record({ sessionId: session?.sessionId ?? null, dialled, caller: from, bridgedTo, refused });
    return bridgedTo ? { bridged: true, to: bridgedTo } : { bridged: false, reason: refused ?? 'refused' };
  }
}

function asCallSession(session: PoolSession): CallSession {
  return { sessionId: session.sessionId, proxyNumber: session.poolNumber, expiresAt: session.expiresAt };
}
