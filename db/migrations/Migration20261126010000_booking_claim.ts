import { Migration } from '@mikro-orm/migrations';

/**
 * A booking row records when its delivery workflow claimed it (its first step): a row left
 * unclaimed is an orphan for the booking sweeper. Rows past `pending` have had a workflow, so they
 * count as claimed; pending ones are left to the sweeper, which starts or claims for the workflow
 * each lacks.
 */
export class Migration20261126010000_booking_claim extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table deliveries add column if not exists workflow_claimed_at timestamptz;
update deliveries set workflow_claimed_at = created_at where status <> 'pending' and workflow_claimed_at is null;
`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table deliveries drop column if exists workflow_claimed_at;');
  }
}
