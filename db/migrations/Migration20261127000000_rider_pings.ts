import { Migration } from '@mikro-orm/migrations';

/**
 * Riders' rows take a position ping every few seconds each, so a ping must be a HOT update
 * (no index touched, the new version on the same page):
 * - dispatch finds riders by their grid cell (1/200 of a degree, about 550 m), which changes only
 *   when a rider crosses into the next one, instead of by an index on latitude and longitude,
 *   which every ping changed;
 * - pages keep room for the next versions of their rows (fillfactor);
 * - a token's last change is kept, so every API process hears of rotations and revocations
 *   within a second and can trust a valid token for longer than a ping's interval.
 */
export class Migration20261127000000_rider_pings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table riders add column if not exists cell integer
  generated always as (floor(lat * 200)::integer * 100000 + floor(lng * 200)::integer) stored;
create index if not exists riders_dispatch_cell_idx on riders (cell) where online and active_delivery_id is null and not is_robo;
drop index if exists riders_available_idx;
alter table riders set (fillfactor = 70);
alter table riders add column if not exists token_changed_at timestamptz;
create index if not exists riders_token_changed_idx on riders (token_changed_at) where token_changed_at is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists riders_token_changed_idx;
alter table riders drop column if exists token_changed_at;
alter table riders reset (fillfactor);
create index if not exists riders_available_idx on riders (online, lat, lng) where active_delivery_id is null and not is_robo;
drop index if exists riders_dispatch_cell_idx;
alter table riders drop column if exists cell;`);
  }
}
