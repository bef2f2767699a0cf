import { Migration } from '@mikro-orm/migrations';

/** Wrong hand-over codes are counted, and drops locked, by the delivery workflow: the columns are unused. */
export class Migration20261126000000_handover_lock_in_workflow extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table delivery_otps drop column if exists failed_attempts, drop column if exists locked_until;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table delivery_otps add column if not exists failed_attempts integer not null default 0, add column if not exists locked_until timestamptz;');
  }
}
