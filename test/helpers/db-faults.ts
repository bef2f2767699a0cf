import type { Orm } from '../../db/orm';

// Faults put into Postgres by tests: connections dropped, a write refused mid-way.

/** Asks `pg_terminate_backend` to drop every connection opened under `applicationName`. */
export async function dropConnections(orm: Orm, applicationName: string): Promise<number> {
  const rows = await orm.em
    .fork()
    .execute<{ dropped: boolean }[]>(
      `select pg_terminate_backend(pid) as dropped from pg_stat_activity
       where application_name = ? and pid <> pg_backend_pid()`,
      [applicationName],
    );
  return rows.filter((r) => r.dropped).length;
}

/**
 * Makes Postgres end the connection (57P01, as on a failover) in the middle of any write of a
 * callback setting with `url`. Returns the undoing, which the test runs however it ends.
 */
export async function dropConnectionOnWebhookWrite(orm: Orm, url: string): Promise<() => Promise<void>> {
  const em = orm.em.fork();
  await em.execute(`create or replace function fail_webhook_write() returns trigger language plpgsql as $$
      begin raise exception 'terminating connection due to administrator command' using errcode = '57P01'; end $$`);
  await em.execute(`create trigger fail_webhook_write before insert or update on webhook_endpoints
      for each row when (new.url = '${url.replace(/'/g, "''")}') execute function fail_webhook_write()`);
  return async () => {
    await em.execute('drop trigger if exists fail_webhook_write on webhook_endpoints');
    await em.execute('drop function if exists fail_webhook_write()');
  };
}
