import { initOrm, type Orm } from '../../db/orm';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy';

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

/**
 * An ORM on the tests' database whose connections go through a relay the test can cut, as a
 * network partition would, or count what is sent through. The caller closes both.
 */
export async function ormBehindProxy(poolMax = 2): Promise<{ orm: Orm; proxy: TcpProxy }> {
  const url = new URL(process.env.TEST_DATABASE_URL ?? '');
  const proxy = await startTcpProxy(url.hostname, Number(url.port));
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { orm: await initOrm(url.toString(), poolMax), proxy };
}
