import { Migration } from '@mikro-orm/migrations';

/**
 * Rider tokens expire (a token taken from a lost phone stops working on its own), and masked calls:
 * one session per recipient of a job, and every call placed through one, bridged or refused.
 */
export class Migration20261126040000_rider_tokens_calls extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table riders add column if not exists token_expires_at timestamptz;
update riders set token_expires_at = now() + interval '30 days' where token_hash is not null and token_expires_at is null;

create table if not exists call_sessions (
  id uuid primary key,
  delivery_id uuid not null references deliveries(id),
  stop_index integer not null,
  rider_id uuid not null references riders(id),
  recipient_phone text not null,
  proxy_number text not null unique,
  expires_at timestamptz not null,
  closed_at timestamptz,
  created_at timestamptz not null default now(),
  unique (delivery_id, stop_index, rider_id)
);
create sequence if not exists call_proxy_numbers;

create table if not exists call_log (
  id bigserial primary key,
  session_id uuid references call_sessions(id),
  dialled text not null,
  caller text,
  bridged_to text,
  refused text,
  created_at timestamptz not null default now()
);
create index if not exists call_log_session_idx on call_log (session_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists call_log;
drop table if exists call_sessions;
drop sequence if exists call_proxy_numbers;
alter table riders drop column if exists token_expires_at;
`);
  }
}
