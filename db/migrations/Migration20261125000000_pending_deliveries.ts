import { Migration } from '@mikro-orm/migrations';

/**
 * The jobs still waiting for a rider, found without reading every delivery: a rider's list of
 * offers joins only these, and there are few at any time. On a large table, build it first with
 * `create index concurrently` (writes go on meanwhile); this migration then finds it there.
 */
export class Migration20261125000000_pending_deliveries extends Migration {
  override async up(): Promise<void> {
    this.addSql("create index if not exists deliveries_pending_idx on deliveries (id) where status = 'pending';");
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists deliveries_pending_idx;');
  }
}
