import { Migration } from '@mikro-orm/migrations';

/**
 * A hand-over code kept back by the hourly text budget waits in the outbox, marked with why it was
 * not texted, for the partner's dashboard (docs/decisions/0157-unpaid-work.md).
 */
export class Migration20261128150100_withheld_texts extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table sms_outbox add column if not exists withheld_reason text;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table sms_outbox drop column if exists withheld_reason;');
  }
}
