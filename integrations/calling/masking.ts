/**
 * Masked calling (the contract's `recipient_phone` "is used for masked calling"): a rider is given
 * a number that reaches one recipient while the rider's job is active, never the recipient's own.
 * Shaped like a proxy-number provider's API (a session per rider–recipient pair, closed when the
 * job ends).
 */
export interface CallSession {
  sessionId: string;
  /** The number the rider dials; the provider bridges it to the recipient. */
  proxyNumber: string;
  expiresAt: Date;
}

export interface OpenCallSession {
  jobId: string;
  /** The recipient's place in the job: `FINAL_DROP` (-1) or an additional stop's index. */
  stopIndex: number;
  riderId: string;
  riderPhone?: string | null;
  recipientPhone: string;
}

export interface CallMasking {
  /**
   * The job's session for this recipient; opening it again returns the same one, renewed. Null
   * when this rider cannot be given a number (the number pool knows a caller only by the phone
   * on record, and the rider has none).
   */
  openSession(input: OpenCallSession): Promise<CallSession | null>;
  /** Ends every session of the job: calls through them are refused from now on. */
  closeSessions(jobId: string): Promise<void>;
}
