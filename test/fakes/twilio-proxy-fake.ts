/**
 * A local Twilio Proxy over real HTTP (127.0.0.1, random port): one service's Sessions and their
 * Participants under /v1/Services/{ServiceSid}, form-encoded requests with basic auth (account
 * SID, auth token), answers and errors in Twilio's JSON shape (`{code, message, status}`).
 *
 * It keeps Twilio's rules the adapter depends on: UniqueName unique in the service (80603), two
 * participants a session, Identifier in E.164, only closed → in-progress and open/in-progress →
 * closed as status changes (80608). Proxy numbers come from a small pool; a participant gets one
 * that no other open session pairs with the same identifier. `dial(from, to)` routes a call as
 * Twilio would: from a participant of an open session, through that participant's proxy number,
 * to the session's other participant.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeParticipant {
  sid: string;
  identifier: string;
  proxyIdentifier: string;
  friendlyName: string | null;
}

export interface FakeSession {
  sid: string;
  uniqueName: string | null;
  mode: string;
  status: 'open' | 'in-progress' | 'closed';
  dateExpiry: string | null;
  ttl: number | null;
  participants: FakeParticipant[];
  deleted: boolean;
}

export interface FakeProxyRequest {
  method: string;
  path: string;
  form: Record<string, string>;
  status: number;
}

export interface TwilioProxyFake {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  serviceSid: string;
  sessions: Map<string, FakeSession>;
  /** Every request answered, in order (an outage's too). */
  requests: FakeProxyRequest[];
  /** From now on every request answers `status` (or hangs unanswered with 'hang'); null ends the outage. */
  setOutage(outage: number | 'hang' | null): void;
  /** Who a call from `from` to `to` reaches, as Twilio would route it; null when nobody. */
  dial(from: string, to: string): string | null;
  close(): Promise<void>;
}

const E164 = /^\+[1-9]\d{6,14}$/;
const MODES = new Set(['message-only', 'voice-only', 'voice-and-message']);

const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

export async function startTwilioProxyFake(options: { pool?: string[] } = {}): Promise<TwilioProxyFake> {
  const accountSid = sid('AC');
  const authToken = randomBytes(16).toString('hex');
  const serviceSid = sid('KS');
  const pool = options.pool ?? ['+233302000101', '+233302000102', '+233302000103', '+233302000104'];
  const sessions = new Map<string, FakeSession>();
  const requests: FakeProxyRequest[] = [];
  let outage: number | 'hang' | null = null;
  const hung = new Set<http.ServerResponse>();

  const live = (s: FakeSession) => !s.deleted && s.status !== 'closed';

  const sessionJson = (s: FakeSession) => ({
    sid: s.sid,
    service_sid: serviceSid,
    account_sid: accountSid,
    unique_name: s.uniqueName,
    mode: s.mode,
    status: s.status,
    date_expiry: s.dateExpiry,
    ttl: s.ttl ?? 0,
    url: `https://proxy.twilio.com/v1/Services/${serviceSid}/Sessions/${s.sid}`,
  });

  const participantJson = (s: FakeSession, p: FakeParticipant) => ({
    sid: p.sid,
    session_sid: s.sid,
    service_sid: serviceSid,
    account_sid: accountSid,
    friendly_name: p.friendlyName,
    identifier: p.identifier,
    proxy_identifier: p.proxyIdentifier,
  });

  /** A number no other open session pairs with this identifier; the session partner's own first, as Twilio prefers. */
  const proxyNumberFor = (session: FakeSession, identifier: string): string | null => {
    const taken = new Set(
      [...sessions.values()].filter((s) => s !== session && live(s)).flatMap((s) => s.participants.filter((p) => p.identifier === identifier).map((p) => p.proxyIdentifier)),
    );
    const preferred = session.participants.map((p) => p.proxyIdentifier);
    return [...preferred, ...pool].find((number) => !taken.has(number)) ?? null;
  };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const form = Object.fromEntries(new URLSearchParams(raw));
      const record: FakeProxyRequest = { method: req.method ?? 'GET', path: url.pathname, form, status: 0 };
      requests.push(record);
      if (outage === 'hang') {
        hung.add(res);
        return;
      }
      const answer = (status: number, body?: unknown) => {
        record.status = status;
        if (body === undefined) return res.writeHead(status).end();
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const error = (status: number, code: number, message: string) =>
        answer(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
      if (outage !== null) return error(outage, 20500, 'Internal Server Error');

      const [scheme, credentials] = (req.headers.authorization ?? '').split(' ');
      const [user, password] = Buffer.from(credentials ?? '', 'base64').toString('utf8').split(':');
      if (scheme !== 'Basic' || user !== accountSid || password !== authToken) return error(401, 20003, 'Authenticate');
      if (raw && !/^application\/x-www-form-urlencoded/.test(req.headers['content-type'] ?? '')) {
        return error(400, 20001, 'Expected a form-encoded body');
      }

      const match = /^\/v1\/Services\/([^/]+)\/Sessions(?:\/([^/]+))?(?:\/(Participants))?$/.exec(url.pathname);
      if (!match || match[1] !== serviceSid) return error(404, 20404, `The requested resource ${url.pathname} was not found`);
      const [, , sessionSid, participants] = match;
      const session = sessionSid ? sessions.get(sessionSid) : undefined;
      if (sessionSid && (!session || session.deleted)) return error(404, 20404, `The requested resource ${url.pathname} was not found`);

      if (!sessionSid && req.method === 'POST') {
        const uniqueName = form.UniqueName ?? null;
        if (uniqueName && (uniqueName.length > 191 || [...sessions.values()].some((s) => !s.deleted && s.uniqueName === uniqueName))) {
          return error(400, 80603, 'Session UniqueName must be unique.');
        }
        const mode = form.Mode ?? 'voice-and-message';
        if (!MODES.has(mode)) return error(400, 20001, 'Invalid Mode');
        if (form.DateExpiry !== undefined && Number.isNaN(Date.parse(form.DateExpiry))) return error(400, 20001, 'Invalid DateExpiry');
        if (form.Ttl !== undefined && !/^\d+$/.test(form.Ttl)) return error(400, 20001, 'Invalid Ttl');
        const created: FakeSession = {
          sid: sid('KC'),
          uniqueName,
          mode,
          status: 'open',
          dateExpiry: form.DateExpiry ?? null,
          ttl: form.Ttl === undefined ? null : Number(form.Ttl),
          participants: [],
          deleted: false,
        };
        sessions.set(created.sid, created);
        return answer(201, sessionJson(created));
      }
      if (session && !participants && req.method === 'POST') {
        if (form.Status !== undefined) {
          const allowed = (form.Status === 'closed' && session.status !== 'closed') || (form.Status === 'in-progress' && session.status === 'closed');
          if (!allowed) return error(400, session.status === 'closed' ? 80607 : 80608, 'Session status change not supported');
          session.status = form.Status as FakeSession['status'];
        } else if (session.status === 'closed') {
          return error(400, 80607, 'Session is closed and cannot be updated');
        }
        if (form.DateExpiry !== undefined) session.dateExpiry = form.DateExpiry;
        if (form.Ttl !== undefined) session.ttl = Number(form.Ttl);
        return answer(200, sessionJson(session));
      }
      if (session && !participants && req.method === 'DELETE') {
        session.deleted = true;
        return answer(204);
      }
      if (session && participants && req.method === 'POST') {
        const identifier = form.Identifier ?? '';
        if (!E164.test(identifier)) return error(400, 80103, 'Invalid Identifier: expected an E.164 phone number');
        if (session.status === 'closed') return error(400, 80607, 'Session is closed and cannot be updated');
        if (session.participants.length >= 2) return error(400, 80609, 'A Session may have at most two Participants');
        if (session.participants.some((p) => p.identifier === identifier)) return error(400, 80104, 'Participant already in the Session');
        const proxyIdentifier = proxyNumberFor(session, identifier);
        if (!proxyIdentifier) return error(400, 80207, 'No proxy number available for this Participant');
        const participant = { sid: sid('KP'), identifier, proxyIdentifier, friendlyName: form.FriendlyName ?? null };
        session.participants.push(participant);
        // A session with both its participants is in progress, as Twilio marks it.
        if (session.participants.length === 2) session.status = 'in-progress';
        return answer(201, participantJson(session, participant));
      }
      return error(405, 20004, 'Method not allowed');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accountSid,
    authToken,
    serviceSid,
    sessions,
    requests,
    setOutage(next) {
      outage = next;
      if (next !== 'hang') {
        for (const res of hung) res.destroy();
        hung.clear();
      }
    },
    dial(from, to) {
      for (const session of sessions.values()) {
        if (!live(session) || session.participants.length !== 2) continue;
        const caller = session.participants.find((p) => p.identifier === from && p.proxyIdentifier === to);
        if (caller) return session.participants.find((p) => p !== caller)!.identifier;
      }
      return null;
    },
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
