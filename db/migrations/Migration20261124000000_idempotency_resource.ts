import { Migration } from '@mikro-orm/migrations';

/** A claimed key remembers what its request made, so a repeat is answered with it even when the first answer was lost. */
export class Migration20261124000000_idempotency_resource extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table idempotency_keys add column resource_id uuid;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table idempotency_keys drop column if exists resource_id;');
  }
}
