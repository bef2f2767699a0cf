import type { Orm } from '../../db/orm';

/**
 * What the db-*.ts readers and writers share: a query on a fresh fork of the ORM (so no identity
 * map hides what another process wrote), and a time in the past as SQL.
 */
export function rows<T>(orm: Orm, sql: string, params: unknown[] = []): Promise<T[]> {
  return orm.em.fork().execute<T[]>(sql, params);
}

export async function write(orm: Orm, sql: string, params: unknown[] = []): Promise<void> {
  await orm.em.fork().execute(sql, params);
}

/** A span of time, for putting a row's clock back. */
export interface Age {
  hours?: number;
  minutes?: number;
  seconds?: number;
}

/** `now()` less `age`, as SQL with its three parameters. */
export function ago(age: Age): { sql: string; params: number[] } {
  return { sql: 'now() - make_interval(hours => ?, mins => ?, secs => ?)', params: [age.hours ?? 0, age.minutes ?? 0, age.seconds ?? 0] };
}

/** Ids as `in (?)` takes them: one, or a list. */
export const list = (ids: string | readonly string[]): string[] => (typeof ids === 'string' ? [ids] : [...ids]);
