import { Migration } from '@mikro-orm/migrations';

/**
 * A debit's record says whether the gateway gave its word on the outcome, and when a later report
 * asked for it to be checked again; every correction of a record is kept in an audit table.
 */
export class Migration20261126020000_debit_reconciliation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table debits
  add column if not exists gateway_confirmed boolean not null default false,
  add column if not exists recheck_requested_at timestamptz,
  add column if not exists checked_at timestamptz;
update debits set gateway_confirmed = true where state <> 'pending';
create index if not exists debits_to_reconcile_idx on debits (requested_at)
  where state = 'pending' or not gateway_confirmed or recheck_requested_at is not null;

create table if not exists debit_corrections (
  id bigserial primary key,
  delivery_id uuid not null references deliveries(id),
  from_state text not null,
  to_state text not null,
  gateway text not null,
  reason text,
  trigger text not null,
  created_at timestamptz not null default now()
);
create index if not exists debit_corrections_delivery_idx on debit_corrections (delivery_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists debit_corrections;
drop index if exists debits_to_reconcile_idx;
alter table debits drop column if exists gateway_confirmed, drop column if exists recheck_requested_at, drop column if exists checked_at;
`);
  }
}
