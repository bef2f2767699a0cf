import { callRefusal, type CallOutcome, type PlacedCall, type RoutedSession } from './call-routing';
import type { CallMasking, CallSession, OpenCallSession } from './masking';

/** Where the local bridge keeps its sessions and calls: our own Postgres (db/call-sessions.ts). */
export interface CallSessionStore {
  open(session: Omit<OpenCallSession, 'riderPhone'> & { expiresAt: Date }): Promise<CallSession>;
  closeAll(jobId: string): Promise<void>;
  route(proxyNumber: string): Promise<RoutedSession | null>;
  record(call: PlacedCall): Promise<void>;
}

/**
 * The offline default: no telephone network, sessions and calls in Postgres. `placeCall` stands
 * for a phone dialling the proxy number; it bridges only while the session's job is active, as a
 * real provider would once the session is closed, and records every call for `npm run ops -- calls`.
 */
export class LocalCallBridge implements CallMasking {
  constructor(
    private readonly store: CallSessionStore,
    /** A session outlives no job (the job's end refuses it too); this only caps a forgotten one. */
    private readonly sessionHours = 12,
  ) {}

  async openSession(input: OpenCallSession): Promise<CallSession> {
    const expiresAt = new Date(Date.now() + this.sessionHours * 3_600_000);
    return this.store.open({ jobId: input.jobId, stopIndex: input.stopIndex, riderId: input.riderId, recipientPhone: input.recipientPhone, expiresAt });
  }

  async closeSessions(jobId: string): Promise<void> {
    await this.store.closeAll(jobId);
  }

  async placeCall(proxyNumber: string, caller: string | null = null): Promise<CallOutcome> {
    const session = await this.store.route(proxyNumber);
    const refused = callRefusal(session);
    const bridgedTo = session && !refused ? session.recipientPhone : null;
    await this.store.record({ sessionId: session?.sessionId ?? null, dialled: proxyNumber, caller, bridgedTo, refused });
    return bridgedTo ? { bridged: true, to: bridgedTo } : { bridged: false, reason: refused ?? 'refused' };
  }
}
