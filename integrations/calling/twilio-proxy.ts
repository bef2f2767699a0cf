import axios, { type AxiosInstance } from 'axios';
import type { CallMasking, CallSession, OpenCallSession } from './masking';

/** Which job's recipient, called by which rider: one provider session each. */
export interface ProxySessionKey {
  jobId: string;
  stopIndex: number;
  riderId: string;
}

/** A provider's session as we keep it, so a view of the job needs no call to the provider. */
export interface ProxySessionRecord {
  sessionSid: string;
  recipientPhone: string;
  /** The phone the rider takes part with; null while the session holds the recipient only. */
  riderPhone: string | null;
  proxyNumber: string;
  expiresAt: Date;
  closed: boolean;
}

/** Where the provider's session ids are kept: our own Postgres (db/call-sessions.ts). */
export interface ProxySessionStore {
  find(key: ProxySessionKey): Promise<ProxySessionRecord | null>;
  /** Records the key's session (replacing an earlier one), open. */
  save(key: ProxySessionKey, session: Omit<ProxySessionRecord, 'closed'>): Promise<void>;
  /** The job's sessions not yet closed. */
  openSessions(jobId: string): Promise<string[]>;
  markClosed(sessionSid: string): Promise<void>;
}

/**
 * The masked-calling provider did not answer, or answered with an error. Its message says
 * "unavailable", which the API's error handler answers as 503 `unavailable` (isUnavailable in
 * api/middleware/error-handler.ts): the rider app retries, as it would for a database outage.
 */
export class CallProviderUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallProviderUnavailableError';
  }
}

export interface TwilioProxyOptions {
  accountSid: string;
  authToken: string;
  /** The Proxy service (KS…) whose number pool sessions draw from. */
  serviceSid: string;
  /** https://proxy.twilio.com; a test points it at a local fake. */
  baseUrl?: string;
  timeoutMs?: number;
  /**
   * How long a session lasts unless renewed (2 hours). Unlike the local bridge, Twilio cannot see
   * that a job ended: a session the rider route did not close (a cancel or an expiry, which the
   * rider no longer views) bridges until this runs out. An active job's views renew it at half
   * its life, so a long job keeps its number.
   */
  sessionHours?: number;
  /** Writes to Twilio waiting their turn beyond which a request fails at once (20). */
  maxWaiting?: number;
}

interface TwilioAnswer {
  status: number;
  body: { sid?: string; proxy_identifier?: string; code?: number; message?: string };
}

/** Twilio's error codes for a session already closed (80607) or a status change it refuses (80608). */
const ALREADY_CLOSED = new Set([80607, 80608]);

/**
 * Twilio Proxy (REST, form-encoded, basic auth with the account SID and auth token): a voice-only
 * session per (job, recipient, rider), the recipient and the rider as its two participants.
 * Twilio knows a caller by their own number: a participant dials their `proxy_identifier` and is
 * put through to the other participant, shown that same proxy number. So the rider is given the
 * rider participant's proxy number.
 *
 * Without the rider's phone (riders have none on record: db/riders.ts) the session holds the
 * recipient alone and the rider is given the recipient participant's proxy number, which Twilio
 * bridges to nobody until the rider joins: the next open that carries the rider's phone replaces
 * the session with one that has both. Until riders' phones are recorded, calls do not connect;
 * the recipient's own number still never reaches the rider.
 *
 * The provider is asked only when a session must be made, renewed or replaced; every other view
 * of the job (the rider app reads it every few seconds) is answered from the store.
 */
export class TwilioProxyCalling implements CallMasking {
  private readonly http: AxiosInstance;
  private readonly sessionMs: number;
  /** Provider writes, one at a time: Twilio refuses (80623) a participant added to two sessions at once. */
  private writes: Promise<unknown> = Promise.resolve();
  /** Writes queued or running; past maxWaiting (Twilio slow or down) a request fails at once rather than wait its turn. */
  private waiting = 0;
  private readonly maxWaiting: number;
  /** Opens under way in this process, by job. */
  private readonly opening = new Map<string, Set<Promise<unknown>>>();

  constructor(
    private readonly store: ProxySessionStore,
    options: TwilioProxyOptions,
  ) {
    this.sessionMs = (options.sessionHours ?? 2) * 3_600_000;
    this.maxWaiting = options.maxWaiting ?? 20;
    this.http = axios.create({
      baseURL: `${options.baseUrl ?? 'https://proxy.twilio.com'}/v1/Services/${encodeURIComponent(options.serviceSid)}`,
      timeout: options.timeoutMs ?? 5000,
      auth: { username: options.accountSid, password: options.authToken },
      maxRedirects: 0,
      validateStatus: () => true,
    });
  }

  async openSession(input: OpenCallSession): Promise<CallSession> {
    const opening = this.opening.get(input.jobId) ?? new Set<Promise<unknown>>();
    this.opening.set(input.jobId, opening);
    const run = this.open(input);
    opening.add(run);
    try {
      return await run;
    } finally {
      opening.delete(run);
      if (opening.size === 0 && this.opening.get(input.jobId) === opening) this.opening.delete(input.jobId);
    }
  }

  async closeSessions(jobId: string): Promise<void> {
    // A view that was opening one of the job's sessions when the job ended finishes first, so
    // the session it opens is closed here too rather than left bridging until its expiry.
    await Promise.allSettled(this.opening.get(jobId) ?? []);
    for (const sessionSid of await this.store.openSessions(jobId)) {
      await this.end(sessionSid);
      await this.store.markClosed(sessionSid);
    }
  }

  private async open(input: OpenCallSession): Promise<CallSession> {
    const key = { jobId: input.jobId, stopIndex: input.stopIndex, riderId: input.riderId };
    const known = await this.store.find(key);
    if (known && this.current(known, input) && !this.dueForRenewal(known)) return asCallSession(known);
    return this.oneAtATime(async () => {
      // Read again: an earlier write in the queue may have opened this very session.
      const recorded = await this.store.find(key);
      if (recorded && this.current(recorded, input)) {
        if (!this.dueForRenewal(recorded)) return asCallSession(recorded);
        const renewed = await this.renew(recorded);
        if (renewed) {
          await this.store.save(key, renewed);
          return asCallSession(renewed);
        }
      }
      if (recorded && !recorded.closed) await this.end(recorded.sessionSid);
      const opened = await this.create(key, input.recipientPhone, input.riderPhone ?? recorded?.riderPhone ?? null);
      await this.store.save(key, opened);
      return asCallSession(opened);
    });
  }

  /** The recorded session still joins this recipient and (when a phone is given) this rider. */
  private current(recorded: ProxySessionRecord, input: OpenCallSession): boolean {
    return recorded.recipientPhone === input.recipientPhone && (!input.riderPhone || input.riderPhone === recorded.riderPhone);
  }

  /** Closed, or past half its life: renewed early, so a rider reading the job never holds an expired number. */
  private dueForRenewal(recorded: ProxySessionRecord): boolean {
    return recorded.closed || recorded.expiresAt.getTime() - Date.now() < this.sessionMs / 2;
  }

  /** The same session, its expiry moved on (and reopened if it closed); null when Twilio will not. */
  private async renew(recorded: ProxySessionRecord): Promise<Omit<ProxySessionRecord, 'closed'> | null> {
    const expiresAt = new Date(Date.now() + this.sessionMs);
    // Twilio closes a session at its expiry; only a closed one may be moved to in-progress (80608).
    const reopen = recorded.closed || recorded.expiresAt.getTime() <= Date.now();
    const answer = await this.request('post', `/Sessions/${recorded.sessionSid}`, {
      DateExpiry: expiresAt.toISOString(),
      ...(reopen ? { Status: 'in-progress' } : {}),
    });
    // Gone (404), or not to be reopened (80604: a participant's number is in use by another open
    // session): a new session replaces it.
    if (answer.status >= 400 && answer.status < 500 && answer.status !== 401 && answer.status !== 403) return null;
    this.ensureOk(answer);
    return { ...recorded, expiresAt };
  }

  private async create(key: ProxySessionKey, recipientPhone: string, riderPhone: string | null): Promise<Omit<ProxySessionRecord, 'closed'>> {
    const expiresAt = new Date(Date.now() + this.sessionMs);
    const session = this.ensureOk(
      await this.request('post', '/Sessions', {
        // Names the job in Twilio's console (no personal data); the time keeps it unique, so a
        // create whose answer was lost never blocks the next one with 80603.
        UniqueName: `${key.jobId}:${key.stopIndex}:${key.riderId}:${Date.now().toString(36)}`,
        Mode: 'voice-only',
        DateExpiry: expiresAt.toISOString(),
      }),
    );
    const sessionSid = required(session.sid, 'sid');
    try {
      const recipient = this.ensureOk(await this.request('post', `/Sessions/${sessionSid}/Participants`, { Identifier: recipientPhone, FriendlyName: 'recipient' }));
      let proxyNumber = required(recipient.proxy_identifier, 'proxy_identifier');
      if (riderPhone) {
        const rider = this.ensureOk(await this.request('post', `/Sessions/${sessionSid}/Participants`, { Identifier: riderPhone, FriendlyName: 'rider' }));
        proxyNumber = required(rider.proxy_identifier, 'proxy_identifier');
      }
      return { sessionSid, recipientPhone, riderPhone, proxyNumber, expiresAt };
    } catch (error) {
      // Half made, it would be a session nobody knows of; its expiry would end it anyway.
      await this.request('delete', `/Sessions/${sessionSid}`).catch(() => undefined);
      throw error;
    }
  }

  /** Closes a session; one Twilio no longer has, or has closed already, is done with too. */
  private async end(sessionSid: string): Promise<void> {
    const answer = await this.request('post', `/Sessions/${sessionSid}`, { Status: 'closed' });
    if (answer.status === 404 || (answer.status === 400 && ALREADY_CLOSED.has(answer.body.code ?? 0))) return;
    this.ensureOk(answer);
  }

  private async oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    if (this.waiting >= this.maxWaiting) throw new CallProviderUnavailableError(`Twilio Proxy unavailable: ${this.waiting} requests already waiting for it`);
    this.waiting += 1;
    const run = this.writes.then(work, work);
    this.writes = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      this.waiting -= 1;
    }
  }

  private async request(method: 'post' | 'delete', path: string, form?: Record<string, string>): Promise<TwilioAnswer> {
    try {
      const res = await this.http.request({ method, url: path, data: form ? new URLSearchParams(form) : undefined });
      return { status: res.status, body: typeof res.data === 'object' && res.data !== null ? res.data : {} };
    } catch (error) {
      // A fresh error without `cause`: axios errors carry the request, with the auth header and
      // the recipient's phone in it, and errors are logged whole.
      const code = axios.isAxiosError(error) && error.code ? error.code : 'network error';
      throw new CallProviderUnavailableError(`Twilio Proxy unavailable: no answer (${code})`);
    }
  }

  private ensureOk(answer: TwilioAnswer): TwilioAnswer['body'] {
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    const code = answer.body.code ? `, error ${answer.body.code}` : '';
    throw new CallProviderUnavailableError(`Twilio Proxy unavailable: answered ${answer.status}${code}`);
  }
}

function required(value: string | undefined, field: string): string {
  if (!value) throw new CallProviderUnavailableError(`Twilio Proxy unavailable: its answer had no ${field}`);
  return value;
}

function asCallSession(session: Omit<ProxySessionRecord, 'closed'>): CallSession {
  return { sessionId: session.sessionSid, proxyNumber: session.proxyNumber, expiresAt: session.expiresAt };
}
