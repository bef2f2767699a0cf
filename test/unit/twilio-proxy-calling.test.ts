import { randomUUID } from 'node:crypto';
import { isUnavailable } from '../../api/middleware/error-handler';
import { CallProviderUnavailableError, TwilioProxyCalling, type ProxySessionKey, type ProxySessionRecord, type ProxySessionStore } from '../../integrations/calling/twilio-proxy';
import { startTwilioProxyFake, type TwilioProxyFake } from '../fakes/twilio-proxy-fake';

// The Twilio Proxy adapter against a local Twilio over real HTTP; its sessions kept in memory the
// way db/call-sessions.ts keeps them in Postgres (test/integration/rider-calls-twilio.test.ts).

/** The store as Postgres keeps it, in a Map; `rows` lets a test move a session's clock. */
function memoryStore() {
  const rows = new Map<string, ProxySessionRecord & { jobId: string }>();
  const id = (key: ProxySessionKey) => `${key.jobId}/${key.stopIndex}/${key.riderId}`;
  const store: ProxySessionStore = {
    async find(key) {
      const row = rows.get(id(key));
      return row ? { ...row } : null;
    },
    async save(key, session) {
      rows.set(id(key), { ...session, jobId: key.jobId, closed: false });
    },
    async openSessions(jobId) {
      return [...rows.values()].filter((row) => row.jobId === jobId && !row.closed).map((row) => row.sessionSid);
    },
    async markClosed(sessionSid) {
      for (const row of rows.values()) if (row.sessionSid === sessionSid) row.closed = true;
    },
  };
  return { store, rows };
}

const RECIPIENT = '+233241234567';
const RIDER_PHONE = '+233209876543';

let fake: TwilioProxyFake;
beforeEach(async () => {
  fake = await startTwilioProxyFake();
});
afterEach(async () => {
  await fake.close();
});

function adapter(store: ProxySessionStore, overrides: Partial<{ authToken: string; timeoutMs: number; maxWaiting: number }> = {}) {
  return new TwilioProxyCalling(store, {
    accountSid: fake.accountSid,
    authToken: overrides.authToken ?? fake.authToken,
    serviceSid: fake.serviceSid,
    baseUrl: fake.baseUrl,
    timeoutMs: overrides.timeoutMs ?? 2000,
    maxWaiting: overrides.maxWaiting,
  });
}

function job(overrides: Partial<{ riderPhone: string; recipientPhone: string }> = {}) {
  return { jobId: randomUUID(), stopIndex: -1, riderId: randomUUID(), recipientPhone: RECIPIENT, ...overrides };
}

const writes = () => fake.requests.filter((r) => r.method !== 'GET').length;

describe('Twilio Proxy masked calling', () => {
  it("opens a voice-only session with the job's recipient, and gives the same number on every later view without asking Twilio again", async () => {
    const { store } = memoryStore();
    const calling = adapter(store);
    const input = job();

    const first = await calling.openSession(input);
    expect(fake.requests.map((r) => [r.method, r.path.replace(fake.serviceSid, 'KS').replace(/KC[0-9a-f]{32}/, 'KC')])).toEqual([
      ['POST', '/v1/Services/KS/Sessions'],
      ['POST', '/v1/Services/KS/Sessions/KC/Participants'],
    ]);
    const [create, join] = fake.requests;
    expect(create!.form).toEqual({ UniqueName: expect.stringContaining(`${input.jobId}:-1:${input.riderId}`), Mode: 'voice-only', DateExpiry: first.expiresAt.toISOString() });
    expect(join!.form).toEqual({ Identifier: RECIPIENT, FriendlyName: 'recipient' });
    const session = fake.sessions.get(first.sessionId)!;
    expect(session.participants.map((p) => [p.identifier, p.proxyIdentifier])).toEqual([[RECIPIENT, first.proxyNumber]]);
    expect(first.proxyNumber).toMatch(/^\+233302/);
    expect(first.expiresAt.getTime()).toBeGreaterThan(Date.now() + 1.9 * 3_600_000);

    const again = await calling.openSession(input);
    expect(again).toEqual(first);
    expect(fake.requests).toHaveLength(2);
  });

  it("with the rider's phone, joins the rider too and gives the rider's proxy number, which Twilio puts through to the recipient", async () => {
    const calling = adapter(memoryStore().store);
    const session = await calling.openSession(job({ riderPhone: RIDER_PHONE }));
    expect(fake.sessions.get(session.sessionId)!.participants.map((p) => p.identifier)).toEqual([RECIPIENT, RIDER_PHONE]);
    expect(fake.requests.at(-1)!.form).toEqual({ Identifier: RIDER_PHONE, FriendlyName: 'rider' });
    expect(fake.dial(RIDER_PHONE, session.proxyNumber)).toBe(RECIPIENT);
    // The recipient calling back reaches the rider, never seeing the rider's own number either.
    const recipientSide = fake.sessions.get(session.sessionId)!.participants[0]!;
    expect(fake.dial(RECIPIENT, recipientSide.proxyIdentifier)).toBe(RIDER_PHONE);
  });

  it("without the rider's phone the number reaches nobody yet; once the phone is given, a session with both replaces it", async () => {
    const calling = adapter(memoryStore().store);
    const input = job();
    const alone = await calling.openSession(input);
    expect(fake.dial(RIDER_PHONE, alone.proxyNumber)).toBeNull();

    const joined = await calling.openSession({ ...input, riderPhone: RIDER_PHONE });
    expect(joined.sessionId).not.toBe(alone.sessionId);
    expect(fake.sessions.get(alone.sessionId)!.status).toBe('closed');
    expect(fake.dial(RIDER_PHONE, joined.proxyNumber)).toBe(RECIPIENT);
    // A later view without the phone keeps the session that has it.
    expect(await calling.openSession(input)).toEqual(joined);
  });

  it('renews a session past half its life on the same session, and reopens one Twilio closed at its expiry', async () => {
    const { store, rows } = memoryStore();
    const calling = adapter(store);
    const input = job({ riderPhone: RIDER_PHONE });
    const first = await calling.openSession(input);
    const row = () => [...rows.values()][0]!;

    row().expiresAt = new Date(Date.now() + 0.9 * 3_600_000);
    const renewed = await calling.openSession(input);
    expect({ sid: renewed.sessionId, number: renewed.proxyNumber }).toEqual({ sid: first.sessionId, number: first.proxyNumber });
    expect(renewed.expiresAt.getTime()).toBeGreaterThan(Date.now() + 1.9 * 3_600_000);
    expect(fake.requests.at(-1)!.form).toEqual({ DateExpiry: renewed.expiresAt.toISOString() });

    // Twilio closes a session when its expiry passes; reopening is the one status change it takes.
    fake.sessions.get(first.sessionId)!.status = 'closed';
    row().expiresAt = new Date(Date.now() - 1000);
    const reopened = await calling.openSession(input);
    expect(reopened.sessionId).toBe(first.sessionId);
    expect(fake.requests.at(-1)!.form).toEqual({ DateExpiry: reopened.expiresAt.toISOString(), Status: 'in-progress' });
    expect(fake.dial(RIDER_PHONE, reopened.proxyNumber)).toBe(RECIPIENT);
  });

  it("replaces a session Twilio no longer has, and one whose recipient's number changed", async () => {
    const { store, rows } = memoryStore();
    const calling = adapter(store);
    const input = job();
    const first = await calling.openSession(input);
    fake.sessions.get(first.sessionId)!.deleted = true;
    [...rows.values()][0]!.expiresAt = new Date(Date.now() - 1000);
    const replaced = await calling.openSession(input);
    expect(replaced.sessionId).not.toBe(first.sessionId);

    const moved = await calling.openSession({ ...input, recipientPhone: '+233551112222' });
    expect(moved.sessionId).not.toBe(replaced.sessionId);
    expect(fake.sessions.get(replaced.sessionId)!.status).toBe('closed');
    expect(fake.sessions.get(moved.sessionId)!.participants.map((p) => p.identifier)).toEqual(['+233551112222']);
  });

  it("closes every session of the job (Twilio sees Status=closed) and asks nothing when they are closed already", async () => {
    const calling = adapter(memoryStore().store);
    const input = job({ riderPhone: RIDER_PHONE });
    const drop = await calling.openSession(input);
    const stop = await calling.openSession({ ...input, stopIndex: 0, recipientPhone: '+233501234567' });
    const other = await calling.openSession(job({ riderPhone: '+233271112222' }));

    await calling.closeSessions(input.jobId);
    const closes = fake.requests.filter((r) => r.form.Status === 'closed');
    expect(closes.map((r) => r.path.split('/').pop()).sort()).toEqual([drop.sessionId, stop.sessionId].sort());
    expect(fake.sessions.get(drop.sessionId)!.status).toBe('closed');
    expect(fake.dial(RIDER_PHONE, drop.proxyNumber)).toBeNull();
    expect(fake.sessions.get(other.sessionId)!.status).toBe('in-progress');

    const before = writes();
    await calling.closeSessions(input.jobId);
    expect(writes()).toBe(before);
  });

  it('counts a session Twilio closed or lost already as closed', async () => {
    const calling = adapter(memoryStore().store);
    const input = job();
    const first = await calling.openSession(input);
    fake.sessions.get(first.sessionId)!.status = 'closed';
    const second = await calling.openSession({ ...input, stopIndex: 0 });
    fake.sessions.get(second.sessionId)!.deleted = true;
    await expect(calling.closeSessions(input.jobId)).resolves.toBeUndefined();
  });

  it.each([
    ['answers 500', (f: TwilioProxyFake) => f.setOutage(500), /^Twilio Proxy unavailable: answered 500, error 20500$/, {}],
    ['answers 503', (f: TwilioProxyFake) => f.setOutage(503), /^Twilio Proxy unavailable: answered 503/, {}],
    ['does not answer in time', (f: TwilioProxyFake) => f.setOutage('hang'), /^Twilio Proxy unavailable: no answer \(ECONNABORTED\)$/, { timeoutMs: 300 }],
    ['refuses the credentials', () => undefined, /^Twilio Proxy unavailable: answered 401, error 20003$/, { authToken: 'wrong-token' }],
  ])('when Twilio %s, fails with an error the API answers 503, naming no secret or phone', async (_what, breakIt, message, overrides) => {
    const calling = adapter(memoryStore().store, overrides);
    breakIt(fake);
    const error = await calling.openSession(job({ riderPhone: RIDER_PHONE })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallProviderUnavailableError);
    expect((error as Error).message).toMatch(message);
    expect(isUnavailable(error)).toBe(true);
    expect(JSON.stringify({ message: (error as Error).message, ...(error as object) })).not.toMatch(new RegExp(`${fake.authToken}|${RECIPIENT.slice(1)}|${RIDER_PHONE.slice(1)}`));
    expect((error as Error).cause).toBeUndefined();
  });

  it('fails closing the same way, and leaves the session to close on the next try', async () => {
    const { store } = memoryStore();
    const calling = adapter(store);
    const input = job();
    const session = await calling.openSession(input);
    fake.setOutage(500);
    await expect(calling.closeSessions(input.jobId)).rejects.toThrow(CallProviderUnavailableError);
    fake.setOutage(null);
    await calling.closeSessions(input.jobId);
    expect(fake.sessions.get(session.sessionId)!.status).toBe('closed');
  });

  it('while Twilio hangs, fails at once past the waiting limit instead of queueing every rider behind it', async () => {
    const calling = adapter(memoryStore().store, { timeoutMs: 500, maxWaiting: 2 });
    fake.setOutage('hang');
    const began = Date.now();
    const attempts = [job(), job(), job()].map((input) => calling.openSession(input).catch((e: Error) => ({ message: e.message, after: Date.now() - began })));
    const [first, second, third] = (await Promise.all(attempts)) as { message: string; after: number }[];
    expect(third).toEqual({ message: 'Twilio Proxy unavailable: 2 requests already waiting for it', after: expect.any(Number) });
    expect(third!.after).toBeLessThan(300);
    expect([first!.message, second!.message]).toEqual(['Twilio Proxy unavailable: no answer (ECONNABORTED)', 'Twilio Proxy unavailable: no answer (ECONNABORTED)']);
    // Once they are done, the next request takes its turn again.
    fake.setOutage(null);
    await expect(calling.openSession(job())).resolves.toMatchObject({ proxyNumber: expect.stringMatching(/^\+233302/) });
  });

  it("closes a session still being opened when the job's end comes in meanwhile", async () => {
    const calling = adapter(memoryStore().store);
    const input = job();
    const opening = calling.openSession(input);
    const closing = calling.closeSessions(input.jobId);
    const session = await opening;
    await closing;
    expect(fake.sessions.get(session.sessionId)!.status).toBe('closed');
  });

  it("opens a job's recipients' sessions one at a time, so Twilio never sees one rider joining two sessions at once", async () => {
    const calling = adapter(memoryStore().store);
    const input = job({ riderPhone: RIDER_PHONE });
    const sessions = await Promise.all(
      ['+233241110001', '+233241110002', '+233241110003'].map((recipientPhone, i) => calling.openSession({ ...input, stopIndex: i - 1, recipientPhone })),
    );
    expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(3);
    // Each session's writes follow the previous session's: no interleaving.
    const order = fake.requests.map((r) => /Sessions\/(KC[0-9a-f]{32})/.exec(r.path)?.[1] ?? 'create');
    expect(order).toEqual(sessions.flatMap((s) => ['create', s.sessionId, s.sessionId]));
    expect(sessions.map((s) => fake.dial(RIDER_PHONE, s.proxyNumber))).toEqual(['+233241110001', '+233241110002', '+233241110003']);
  });
});
