import { Migration } from '@mikro-orm/migrations';

/**
 * The street watch (workers' schedule): jobs whose rider has gone silent are flagged for an
 * operator, and riders silent for long are set offline, saying why, so the rider app can tell them.
 * The active jobs, and those flagged, are found without reading every delivery: there are few
 * at any time, and the watch reads them every minute.
 */
export class Migration20261128120000_street_watch extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table deliveries add column if not exists attention_since timestamptz;
alter table riders add column if not exists offline_reason text;
create index if not exists deliveries_active_idx on deliveries (id) where status in ('accepted', 'picked_up', 'in_transit');
create index if not exists deliveries_attention_idx on deliveries (id) where attention_since is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists deliveries_attention_idx;
drop index if exists deliveries_active_idx;
alter table riders drop column if exists offline_reason;
alter table deliveries drop column if exists attention_since;`);
  }
}
