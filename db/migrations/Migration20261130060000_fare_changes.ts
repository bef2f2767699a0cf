import { Migration } from '@mikro-orm/migrations';

/**
 * A booking's places changed while pending (docs/decisions/0170-changing-places-and-fares.md): each
 * re-pricing is kept in `fare_changes`, and a higher fare's difference is a debit of its own in
 * `debits`, numbered by `change_seq` (0 is the booking's own debit). A debit's gateway reference
 * is the delivery id for the booking's, and `<delivery id>.<change_seq>` for a change's, so a
 * gateway's report names the delivery whose workflow settles it.
 */
export class Migration20261130060000_fare_changes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table debits add column if not exists change_seq integer not null default 0;
alter table debits add column if not exists reference text generated always as
  (case when change_seq = 0 then delivery_id::text else delivery_id::text || '.' || change_seq::text end) stored;
alter table debits drop constraint if exists debits_pkey;
alter table debits add primary key (delivery_id, change_seq);
create unique index if not exists debits_reference_idx on debits (reference);
alter table debit_corrections add column if not exists change_seq integer not null default 0;

create table if not exists fare_changes (
  delivery_id uuid not null references deliveries(id),
  seq integer not null,
  change_id uuid not null unique,
  previous_total_fare integer not null,
  total_fare integer not null,
  debit_amount integer not null,
  created_at timestamptz not null default now(),
  primary key (delivery_id, seq)
);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists fare_changes;
alter table debit_corrections drop column if exists change_seq;
delete from debits where change_seq <> 0;
alter table debits drop constraint if exists debits_pkey;
drop index if exists debits_reference_idx;
alter table debits drop column if exists reference, drop column if exists change_seq;
alter table debits add primary key (delivery_id);
`);
  }
}
