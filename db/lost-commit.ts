import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

/**
 * Runs `work` in one transaction, and survives a COMMIT whose acknowledgement was lost (the
 * connection dropped as the answer came back): the transaction then reports a failure though it
 * went through. So on any failure `find` looks, on a fresh connection, for what `work` saves;
 * found, that is the result, since an error would have the caller do the work a second time. Not
 * found, or not able to look, the transaction's own error is thrown.
 */
export async function transactionalOrFound<T>(
  orm: MikroORM,
  work: (tx: EntityManager) => Promise<T>,
  find: (em: EntityManager) => Promise<T | null | undefined>,
): Promise<T> {
  try {
    return await orm.em.fork().transactional(work);
  } catch (error) {
    const saved = await find(orm.em.fork()).catch(() => null);
    if (saved === null || saved === undefined) throw error;
    return saved;
  }
}
