import { Migration } from '@mikro-orm/migrations';

/**
 * Dashboard sessions in connect-pg-simple's own shape (it reads and writes the table itself),
 * and the secret that signs dashboard cookies when SESSION_SECRET is not set.
 */
export class Migration20261121010000_dashboard extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop table if exists dashboard_sessions;
create table dashboard_sessions (
  sid varchar primary key,
  sess json not null,
  expire timestamptz not null
);
create index dashboard_sessions_expire_idx on dashboard_sessions (expire);

create table dashboard_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);

create index email_tokens_partner_idx on email_tokens (partner_id, purpose);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists email_tokens_partner_idx;
drop table if exists dashboard_secrets, dashboard_sessions;
create table dashboard_sessions (
  id text primary key,
  partner_id uuid not null references partners(id),
  csrf_token text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
`);
  }
}
