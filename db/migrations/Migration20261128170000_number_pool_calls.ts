import { Migration } from '@mikro-orm/migrations';

/**
 * Masked calls through a pool of rented numbers (integrations/calling/number-pool.ts) kept in
 * `call_sessions` beside the local bridge's: a pool session also names the rider's phone, since a
 * provider tells us only who calls and which number they dialled. A pool number serves many
 * sessions at once, but a caller holds it in one open session at most; the local bridge's numbers
 * (no rider phone) stay unique as before.
 */
export class Migration20261128170000_number_pool_calls extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table call_sessions add column if not exists rider_phone text;
alter table call_sessions drop constraint if exists call_sessions_proxy_number_key;
create unique index if not exists call_sessions_local_number_idx on call_sessions (proxy_number) where rider_phone is null;
create unique index if not exists call_sessions_pool_open_idx on call_sessions (rider_phone, proxy_number) where rider_phone is not null and closed_at is null;
create index if not exists call_sessions_pool_caller_idx on call_sessions (rider_phone, proxy_number, closed_at) where rider_phone is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists call_sessions_pool_caller_idx;
drop index if exists call_sessions_pool_open_idx;
delete from call_log where session_id in (select id from call_sessions where rider_phone is not null);
delete from call_sessions where rider_phone is not null;
drop index if exists call_sessions_local_number_idx;
alter table call_sessions add constraint call_sessions_proxy_number_key unique (proxy_number);
alter table call_sessions drop column if exists rider_phone;`);
  }
}
