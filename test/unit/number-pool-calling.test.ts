import { randomUUID } from 'node:crypto';
import { isUnavailable } from '../../api/middleware/error-handler';
import { NumberPoolCalling, routesIncomingCalls, type NumberPoolStore, type PoolSession, type PoolSessionKey } from '../../integrations/calling/number-pool';
import type { PlacedCall } from '../../integrations/calling/call-routing';

// The number pool's rules against its store kept in a Map, the way db/call-sessions.ts keeps it
// in Postgres: one open session per (caller, number), jobs active until `endJob`.

const POOL = ['+233302000001', '+233302000002', '+233302000003'];
const RIDER_PHONE = '+233241110000';

function memoryStore() {
  type Row = PoolSession & PoolSessionKey & { closed: boolean };
  const rows = new Map<string, Row>();
  const ended = new Set<string>();
  const calls: PlacedCall[] = [];
  const id = (key: PoolSessionKey) => `${key.jobId}/${key.stopIndex}/${key.riderId}`;
  const open = (row: Row) => !row.closed && row.expiresAt.getTime() > Date.now();
  /** Claims that lose to a concurrent request, as the unique index would refuse them. */
  let claimsToLose = 0;
  const store: NumberPoolStore = {
    async current(key) {
      const row = rows.get(id(key));
      return row && open(row) ? { ...row } : null;
    },
    async releaseStale(riderPhone) {
      for (const row of rows.values()) if (row.riderPhone === riderPhone && (!open(row) || ended.has(row.jobId))) row.closed = true;
    },
    async usage(riderPhone, key) {
      const live = [...rows.values()].filter((row) => !row.closed);
      return {
        heldByCaller: live.filter((row) => row.riderPhone === riderPhone && id(row) !== id(key)).map((row) => row.poolNumber),
        openSessions: live.reduce((counts, row) => counts.set(row.poolNumber, (counts.get(row.poolNumber) ?? 0) + 1), new Map<string, number>()),
      };
    },
    async claim(key, session) {
      if (claimsToLose > 0) {
        claimsToLose -= 1;
        return null;
      }
      const taken = [...rows.values()].some((row) => !row.closed && id(row) !== id(key) && row.riderPhone === session.riderPhone && row.poolNumber === session.poolNumber);
      if (taken) return null;
      const row = { ...key, ...session, sessionId: randomUUID(), closed: false };
      rows.set(id(key), row);
      return { ...row };
    },
    async closeAll(jobId) {
      for (const row of rows.values()) if (row.jobId === jobId) row.closed = true;
    },
    async route(caller, dialled) {
      const row = [...rows.values()].find((r) => r.riderPhone === caller && r.poolNumber === dialled);
      return row ? { sessionId: row.sessionId, recipientPhone: row.recipientPhone, expiresAt: row.expiresAt, closed: row.closed, jobActive: !ended.has(row.jobId) } : null;
    },
    async record(call) {
      calls.push(call);
    },
  };
  return { store, calls, endJob: (jobId: string) => ended.add(jobId), loseClaims: (n: number) => (claimsToLose = n) };
}

const job = (jobId: string, stopIndex: number, recipientPhone: string, riderPhone: string | null = RIDER_PHONE) => ({
  jobId,
  stopIndex,
  riderId: 'rider-1',
  riderPhone,
  recipientPhone,
});

describe('masked calls through a number pool', () => {
  it('gives each of a rider’s recipients its own pool number, the same one on every view', async () => {
    const { store } = memoryStore();
    const pool = new NumberPoolCalling(store, { numbers: POOL });
    const drop = await pool.openSession(job('j1', -1, '+233240000001'));
    const stop = await pool.openSession(job('j1', 0, '+233240000002'));
    expect([drop?.proxyNumber, stop?.proxyNumber]).toEqual(['+233302000001', '+233302000002']);
    expect(await pool.openSession(job('j1', -1, '+233240000001'))).toEqual(drop);
    // Another rider's recipient may share a number: the caller tells the two apart.
    const other = await pool.openSession({ ...job('j2', -1, '+233240000003', '+233241119999'), riderId: 'rider-2' });
    expect(POOL).toContain(other?.proxyNumber);
  });

  it('gives a rider without a phone on record no number', async () => {
    const { store } = memoryStore();
    expect(await new NumberPoolCalling(store, { numbers: POOL }).openSession(job('j1', -1, '+233240000001', null))).toBeNull();
  });

  it('puts through only the rider’s own phone on that number, while the job is active', async () => {
    const { store, calls, endJob } = memoryStore();
    const pool = new NumberPoolCalling(store, { numbers: POOL });
    const session = await pool.openSession(job('j1', -1, '+233240000001'));
    const via = session!.proxyNumber;
    // Written as a Ghanaian would, it is still the rider's phone.
    expect(await pool.routeCall('0241110000', via)).toEqual({ bridged: true, to: '+233240000001' });
    expect(await pool.routeCall('+233249999999', via)).toEqual({ bridged: false, reason: 'no session on this number' });
    expect(await pool.routeCall(RIDER_PHONE, '+233302000003')).toEqual({ bridged: false, reason: 'no session on this number' });
    endJob('j1');
    expect(await pool.routeCall(RIDER_PHONE, via)).toEqual({ bridged: false, reason: 'the job is no longer active' });
    await pool.closeSessions('j1');
    expect(await pool.routeCall(RIDER_PHONE, via)).toEqual({ bridged: false, reason: 'the session is closed' });
    expect(calls.map((c) => [c.caller, c.bridgedTo])).toEqual([
      [RIDER_PHONE, '+233240000001'],
      ['+233249999999', null],
      [RIDER_PHONE, null],
      [RIDER_PHONE, null],
      [RIDER_PHONE, null],
    ]);
  });

  it('frees the numbers of the rider’s earlier jobs for the next one', async () => {
    const { store, endJob } = memoryStore();
    const pool = new NumberPoolCalling(store, { numbers: POOL.slice(0, 1) });
    expect((await pool.openSession(job('j1', -1, '+233240000001')))?.proxyNumber).toBe(POOL[0]);
    endJob('j1');
    expect((await pool.openSession(job('j2', -1, '+233240000002')))?.proxyNumber).toBe(POOL[0]);
  });

  it('tries again when a concurrent view took the number, and says the pool is unavailable when the rider holds every number', async () => {
    const { store, loseClaims } = memoryStore();
    const pool = new NumberPoolCalling(store, { numbers: POOL.slice(0, 2) });
    loseClaims(2);
    expect((await pool.openSession(job('j1', -1, '+233240000001')))?.proxyNumber).toBe(POOL[0]);
    await pool.openSession(job('j1', 0, '+233240000002'));
    const refused = pool.openSession(job('j1', 1, '+233240000003'));
    await expect(refused).rejects.toThrow(/^Number pool unavailable: the rider holds all 2 pool numbers/);
    expect(isUnavailable(await refused.catch((error: unknown) => error))).toBe(true);
  });

  it('answers incoming calls, which no other masked-calling provider does', () => {
    expect(routesIncomingCalls(new NumberPoolCalling(memoryStore().store, { numbers: POOL }))).toBe(true);
    expect(routesIncomingCalls({ openSession: async () => null, closeSessions: async () => undefined })).toBe(false);
  });
});
