import { Migration } from '@mikro-orm/migrations';

/** Rate-limit counters shared by every API process (RATE_LIMIT_STORE=postgres). */
export class Migration20261121120000_rate_limit_counters extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table rate_limit_counters (
  key text primary key,
  hits integer not null,
  reset_at timestamptz not null
);
create index rate_limit_counters_reset_idx on rate_limit_counters (reset_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists rate_limit_counters;');
  }
}
