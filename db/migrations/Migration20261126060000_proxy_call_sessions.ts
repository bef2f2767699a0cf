import { Migration } from '@mikro-orm/migrations';

/**
 * Masked-calling sessions held by an outside provider (Twilio Proxy): the provider's session id
 * per (job, recipient, rider), so a session is renewed rather than opened again on every view of
 * the job and closed when the job ends. The local bridge keeps its own in `call_sessions`.
 */
export class Migration20261126060000_proxy_call_sessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table if not exists proxy_call_sessions (
  delivery_id uuid not null references deliveries(id),
  stop_index integer not null,
  rider_id uuid not null references riders(id),
  provider text not null,
  session_sid text not null unique,
  recipient_phone text not null,
  rider_phone text,
  proxy_number text not null,
  expires_at timestamptz not null,
  closed_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (delivery_id, stop_index, rider_id)
);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists proxy_call_sessions;');
  }
}
