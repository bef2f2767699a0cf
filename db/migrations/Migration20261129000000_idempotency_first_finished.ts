import { Migration } from '@mikro-orm/migrations';

/**
 * A key remembers when its first request finished without an answer to replay (a 503 whose
 * booking was kept): from then on nobody can withdraw what it made, so a repeat may name it.
 */
export class Migration20261129000000_idempotency_first_finished extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table idempotency_keys add column first_finished_at timestamptz;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table idempotency_keys drop column if exists first_finished_at;');
  }
}
