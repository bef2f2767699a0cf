import { initOrm, type Orm } from '../../db/orm';
import { poolQuery } from '../../db/pool-query';

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
});
