import { Migration } from '@mikro-orm/migrations';

/**
 * The rider's own phone, for masked calling: a proxy-number provider bridges a call only between
 * the two numbers it knows, the recipient's and the rider's. Never shown to anyone.
 */
export class Migration20261126080000_rider_phone extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table riders add column if not exists phone text;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table riders drop column if exists phone;');
  }
}
