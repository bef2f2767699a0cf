import { Migration } from '@mikro-orm/migrations';

/**
 * A delivery's ETA in a table of its own (docs/decisions/0175-read-caches-that-hit.md): a read
 * refreshes it every 20 s while a job is live, and on the delivery's row each refresh moved the
 * row's version, which every kept answer about the delivery is checked against, so none was ever
 * sent twice. The figures already computed move over; the row's columns go.
 *
 * Updated far more often than inserted, and only `computed_at` and the figures change: room is
 * left on each page, so an update is a HOT one and writes no index entry.
 */
export class Migration20261201000000_delivery_etas extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table if not exists delivery_etas (
  delivery_id uuid primary key references deliveries(id) on delete cascade,
  eta_min integer,
  eta_legs_min jsonb,
  eta_times jsonb,
  computed_at timestamptz
) with (fillfactor = 70);

insert into delivery_etas (delivery_id, eta_min, eta_legs_min, eta_times, computed_at)
  select id, eta_min, eta_legs_min, eta_times, eta_computed_at from deliveries
  where eta_min is not null or eta_legs_min is not null or eta_times is not null or eta_computed_at is not null
  on conflict (delivery_id) do nothing;

alter table deliveries
  drop column if exists eta_min,
  drop column if exists eta_legs_min,
  drop column if exists eta_times,
  drop column if exists eta_computed_at;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
alter table deliveries
  add column if not exists eta_min integer,
  add column if not exists eta_legs_min jsonb,
  add column if not exists eta_computed_at timestamptz,
  add column if not exists eta_times jsonb;

update deliveries d set eta_min = e.eta_min, eta_legs_min = e.eta_legs_min, eta_times = e.eta_times, eta_computed_at = e.computed_at
  from delivery_etas e where e.delivery_id = d.id;

drop table if exists delivery_etas;
`);
  }
}
