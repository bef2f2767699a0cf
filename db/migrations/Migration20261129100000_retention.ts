import { Migration } from '@mikro-orm/migrations';

/**
 * Recipients' data is kept for RETENTION_DAYS after a delivery ends, then redacted by a daily
 * round (activities/retention.ts): `redacted_at` marks a delivery done, and a callback's stored
 * body goes (its log entry stays). The round reads the finished deliveries not yet redacted, oldest
 * first, without reading the whole table: a partial index holds only those.
 */
export class Migration20261129100000_retention extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table deliveries add column if not exists redacted_at timestamptz;
alter table webhook_events alter column body drop not null;
create index if not exists deliveries_to_redact_idx on deliveries (created_at)
  where redacted_at is null and status in ('delivered', 'cancelled', 'expired');`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists deliveries_to_redact_idx;
update webhook_events set body = '' where body is null;
alter table webhook_events alter column body set not null;
alter table deliveries drop column if exists redacted_at;`);
  }
}
