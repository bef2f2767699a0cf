import { initOrm, type Orm } from '../../db/orm';
import { POSITION_WRITE_GAP_MS, PositionPings } from '../../api/rider/position-pings';
import { makeRider } from '../helpers/partners';
import { ormBehindProxy } from '../helpers/db-faults';
import { riderPositions, riderTableUpdates } from '../helpers/db-riders';

describe('position pings written together', () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await initOrm(process.env.TEST_DATABASE_URL ?? '', 4);
  });
  afterAll(async () => {
    await orm?.close(true);
  });

  it('stores every rider’s position before answering, the latest of each, however many ping at once', async () => {
    const riders = await Promise.all(Array.from({ length: 30 }, (_, i) => makeRider(orm, { lat: 5.6, lng: -0.2 }, `Pinging Rider ${i}`)));
    const pings = new PositionPings(orm);
    // Each rider pings twice in the same few milliseconds: the second is where they are.
    await Promise.all(
      riders.flatMap((rider, i) => [
        pings.record(rider.riderId, { lat: 5.5, lng: -0.3 }),
        pings.record(rider.riderId, { lat: 5.55 + i / 1000, lng: -0.21 }),
      ]),
    );
    const stored = await riderPositions(orm, riders.map((r) => r.riderId));
    expect(riders.map((rider) => stored.get(rider.riderId))).toEqual(riders.map((_, i) => ({ lat: 5.55 + i / 1000, lng: -0.21 })));
  });

  it('never lets an older batch land after a newer one for the same rider', async () => {
    const rider = await makeRider(orm, { lat: 5.6, lng: -0.2 }, 'Moving Rider');
    const pings = new PositionPings(orm);
    const sent = [];
    // A rider whose phone catches up after a network drop sends its pings back to back.
    for (let i = 1; i <= 50; i++) {
      sent.push(pings.record(rider.riderId, { lat: 5.6 + i / 10_000, lng: -0.2 }));
      if (i % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await Promise.all(sent);
    expect((await riderPositions(orm, [rider.riderId])).get(rider.riderId)).toEqual({ lat: 5.6 + 50 / 10_000, lng: -0.2 });
  });

  it('writes a steady stream of pings in at most one statement every POSITION_WRITE_GAP_MS', async () => {
    // The statements counted on their way to Postgres: each names its prepared statement.
    const { orm: counted, proxy } = await ormBehindProxy();
    try {
      const riders = await Promise.all(Array.from({ length: 20 }, (_, i) => makeRider(counted, { lat: 5.6, lng: -0.2 }, `Busy Rider ${i}`)));
      const pings = new PositionPings(counted);
      const statements = proxy.count(/rider-record-positions/g);
      const started = performance.now();
      const sent = [];
      // A ping every millisecond or so, as a city's phones send them.
      for (let i = 0; i < 100; i++) {
        sent.push(pings.record(riders[i % 20]!.riderId, { lat: 5.6 + i / 100_000, lng: -0.2 }));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await Promise.all(sent);
      const spanMs = performance.now() - started;
      // Each statement once, and once more on each connection that prepares it.
      expect(statements()).toBeLessThanOrEqual(Math.ceil(spanMs / POSITION_WRITE_GAP_MS) + 1 + 2);
      const stored = await riderPositions(counted, riders.map((r) => r.riderId));
      expect(riders.map((rider) => stored.get(rider.riderId))).toEqual(riders.map((_, i) => ({ lat: 5.6 + (80 + i) / 100_000, lng: -0.2 })));
    } finally {
      await counted.close(true);
      await proxy.close();
    }
  });

  it('moves a rider within their grid cell without touching an index (a HOT update)', async () => {
    // One connection, so the pings' statistics are this backend's own and can be flushed on demand.
    const single = await initOrm(process.env.TEST_DATABASE_URL ?? '', 1);
    try {
      const rider = await makeRider(single, { lat: 5.6001, lng: -0.2001 }, 'Hot Rider');
      const pings = new PositionPings(single);
      const before = await riderTableUpdates(single);
      // Five pings a few metres apart: all inside the rider's 550 m cell.
      for (let i = 1; i <= 5; i++) await pings.record(rider.riderId, { lat: 5.6001 + i / 100_000, lng: -0.2001 });
      const after = await riderTableUpdates(single);
      expect(after.updated - before.updated).toBeGreaterThanOrEqual(5);
      // Every update of the table since was HOT (other suites' riders live in other lanes' databases).
      expect(after.hot - before.hot).toBe(after.updated - before.updated);
    } finally {
      await single.close(true);
    }
  }, 30_000);

  it('answers every ping of a batch Postgres refused with the error, and keeps taking pings after', async () => {
    const rider = await makeRider(orm, { lat: 5.6, lng: -0.2 }, 'Refused Rider');
    const pings = new PositionPings(orm);
    // Not a latitude Postgres can store as a double: the whole batch is refused.
    const refused = [pings.record(rider.riderId, { lat: Number.NaN, lng: -0.2 }), pings.record('not-a-uuid', { lat: 5.6, lng: -0.2 })];
    const outcomes = await Promise.allSettled(refused);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    await pings.record(rider.riderId, { lat: 5.61, lng: -0.2 });
    expect((await riderPositions(orm, [rider.riderId])).get(rider.riderId)).toEqual({ lat: 5.61, lng: -0.2 });
  });
});
