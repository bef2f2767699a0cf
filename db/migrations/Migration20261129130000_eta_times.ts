import { Migration } from '@mikro-orm/migrations';

/**
 * Beside the minutes the tracking view shows, the same ETA computation keeps the times the rider
 * is expected at the pickup, each stop and the drop, for the partner's record and its callbacks.
 */
export class Migration20261129130000_eta_times extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table deliveries add column eta_times jsonb;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table deliveries drop column if exists eta_times;');
  }
}
