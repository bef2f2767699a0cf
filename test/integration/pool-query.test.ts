import { initOrm, type Orm } from '../../db/orm';
import { isUniqueViolation } from '../../db/errors';
import { poolQuery, poolTransaction } from '../../db/pool-query';

describe('queries on a client of the ORM pool', () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await initOrm(process.env.TEST_DATABASE_URL ?? '', 2);
  });
  afterAll(async () => {
    await orm?.close(true);
  });

  it('runs a named statement with its values', async () => {
    const sum = { name: 'pool-query-test-sum', text: 'select $1::int + $2::int as sum' };
    const { rows } = await poolQuery(orm.em).query<{ sum: number }>({ ...sum, values: [2, 3] });
    expect(rows).toEqual([{ sum: 5 }]);
  });

  // A pool client is another connection: inside a transaction it would miss the transaction's own writes.
  it('refuses an entity manager that is inside a transaction', async () => {
    await expect(orm.em.fork().transactional(async (tx) => poolQuery(tx))).rejects.toThrow(/outside transactions/);
  });

  describe('poolTransaction', () => {
    // A real table: a temporary one belongs to one connection, and the pool has two.
    const table = `pool_tx_probe_${process.pid}`;
    beforeAll(async () => {
      await poolQuery(orm.em).query(`create table if not exists ${table} (id int primary key)`);
    });
    afterAll(async () => {
      await poolQuery(orm.em).query(`drop table if exists ${table}`);
    });
    const ids = async () => (await poolQuery(orm.em).query<{ id: number }>(`select id from ${table} order by id`)).rows.map((r) => r.id);

    it('commits what the work wrote, and sees its own writes inside', async () => {
      const seen = await poolTransaction(orm.em, async (tx) => {
        await tx.query(`insert into ${table} (id) values (1), (2)`);
        return (await tx.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n;
      });
      expect(seen).toBe(2);
      expect(await ids()).toEqual([1, 2]);
    });

    it('rolls back every write when the work throws, and rethrows the database error as it came', async () => {
      const failed = poolTransaction(orm.em, async (tx) => {
        await tx.query(`insert into ${table} (id) values (3)`);
        await tx.query(`insert into ${table} (id) values (1)`);
      });
      const error = await failed.catch((e: unknown) => e);
      expect(isUniqueViolation(error)).toBe(true);
      expect(await ids()).toEqual([1, 2]);
      // The connection went back to the pool out of its aborted transaction: both clients still work.
      await Promise.all([ids(), ids(), ids()]);
      expect(await ids()).toEqual([1, 2]);
    });

    it('refuses an entity manager that is inside a transaction', async () => {
      await expect(orm.em.fork().transactional(async (tx) => poolTransaction(tx, async () => 1))).rejects.toThrow(/outside transactions/);
    });
  });
});
