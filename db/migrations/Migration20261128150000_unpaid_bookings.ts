import { Migration } from '@mikro-orm/migrations';

/**
 * Unpaid bookings (docs/decisions/0157-unpaid-work.md): a debit names its partner and mode, so a
 * booking finds the partner's latest outcomes in one index range (only settled debits are in it,
 * and a booking reads a few entries); an operator's latest lift of a partner's hold, per mode.
 * The new debit columns stay nullable: a worker of the release before, still running while this
 * one rolls out, records debits without them, and those are not counted. Only debits that can
 * still count (pending, or settled within the last day) are filled in.
 */
export class Migration20261128150000_unpaid_bookings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table debits add column if not exists partner_id uuid, add column if not exists mode text;
update debits b set partner_id = d.partner_id, mode = d.mode from deliveries d
  where d.id = b.delivery_id and b.partner_id is null and (b.state = 'pending' or b.settled_at > now() - interval '1 day');
create index if not exists debits_partner_outcomes_idx on debits (partner_id, mode, settled_at) where state <> 'pending';

create table if not exists unpaid_clearances (
  partner_id uuid not null references partners(id),
  mode text not null check (mode in ('live', 'test')),
  unpaid_cleared_at timestamptz not null,
  primary key (partner_id, mode)
);`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists unpaid_clearances;
drop index if exists debits_partner_outcomes_idx;
alter table debits drop column if exists mode, drop column if exists partner_id;`);
  }
}
