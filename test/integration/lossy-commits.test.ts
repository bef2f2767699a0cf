import { initOrm, type Orm } from '../../db/orm';
import { claimRefresh, save } from '../../db/delivery-eta';
import { poolQuery, poolTransaction } from '../../db/pool-query';
import { addHits } from '../../db/rate-limits';
import { setPositions } from '../../db/riders';
import { randomUUID } from 'node:crypto';
import * as paymentMethods from '../../db/payment-methods';
import { commitBookingRow, SANDBOX } from '../helpers/bookings';
import { makePartner, makeRider } from '../helpers/partners';

/**
 * The writes whose loss in a crash costs a position, a count or an estimate (rider pings,
 * rate-limit counters, the ETA a read refreshes) commit without waiting for the WAL to reach the
 * disk. Told apart by what PostgreSQL itself counts: the WAL fsyncs of the one connection that ran
 * them (its per-backend I/O statistics), against an ordinary write's on the same connection.
 */
const TIMES = 40;

let orm: Orm;
beforeAll(async () => {
  // One connection, so every statement runs on the backend whose statistics are read.
  orm = await initOrm(process.env.TEST_DATABASE_URL as string, 1);
});
afterAll(async () => {
  await orm?.close();
});

/** The WAL fsyncs this connection's backend has done so far (its pending statistics flushed first). */
async function walFsyncs(): Promise<number> {
  await poolQuery(orm.em.fork()).query('select pg_stat_force_next_flush()');
  const { rows } = await poolQuery(orm.em.fork()).query<{ fsyncs: number }>(
    `select coalesce(sum(fsyncs), 0)::int as fsyncs from pg_stat_get_backend_io(pg_backend_pid()) where object = 'wal'`,
  );
  return rows[0]?.fsyncs ?? 0;
}

/** The WAL fsyncs `write` made its connection wait for, run TIMES times. */
async function fsyncsOf(write: (n: number) => Promise<unknown>): Promise<number> {
  const before = await walFsyncs();
  for (let n = 0; n < TIMES; n++) await write(n);
  return (await walFsyncs()) - before;
}

describe('writes that need not wait for the disk', () => {
  it('commit without a WAL fsync of their own, where an ordinary write waits for one each time', async () => {
    const rider = await makeRider(orm);
    const { partnerId } = await makePartner(orm);
    const paymentMethodId = randomUUID();
    await poolTransaction(orm.em, (tx) =>
      paymentMethods.insert(tx, { partnerId, mode: 'live' }, { id: paymentMethodId, provider: 'network_a', phone: SANDBOX.ok, accountName: 'Shop', isDefault: true }),
    );
    const deliveryId = await commitBookingRow(orm, { partnerId, mode: 'live', paymentMethodId });
    const em = () => orm.em.fork();

    // The measure itself: an ordinary committed write is flushed before its commit returns, by
    // its own fsync unless another connection's commit flushed past it first (group commit).
    const ordinary = await fsyncsOf((n) => em().execute('update riders set rating = ? where id = ?', [4 + n / 100, rider.riderId]));
    expect(ordinary).toBeGreaterThanOrEqual(TIMES * 0.6);

    const lossy = {
      pings: await fsyncsOf((n) => setPositions(em(), new Map([[rider.riderId, { lat: 5.55 + n / 1e5, lng: -0.2 }]]))),
      rateLimits: await fsyncsOf(() => addHits(em(), [`lossy-test:${rider.riderId}`], [1], 60_000)),
      etaRefresh: await fsyncsOf(async (n) => {
        await claimRefresh(em(), deliveryId, 0);
        await save(em(), deliveryId, { finalMin: n, legsMin: [], times: { pickup: null, dropoff: null, stops: [] } });
      }),
    };
    // The WAL writer flushes them in the background (every 200 ms): a few at most, not one each.
    expect(lossy.pings).toBeLessThan(TIMES / 4);
    expect(lossy.rateLimits).toBeLessThan(TIMES / 4);
    expect(lossy.etaRefresh).toBeLessThan(TIMES / 4);

    // They happened all the same, and the connection is back to waiting for the disk after them.
    const { rows } = await poolQuery(em()).query<{ lat: number; eta_min: number; sync: string }>(
      `select r.lat, e.eta_min, current_setting('synchronous_commit') as sync from riders r, delivery_etas e where r.id = $1 and e.delivery_id = $2`,
      [rider.riderId, deliveryId],
    );
    expect(rows[0]).toEqual({ lat: 5.55 + (TIMES - 1) / 1e5, eta_min: TIMES - 1, sync: 'on' });
  });
});
