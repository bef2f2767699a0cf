import { Migration } from '@mikro-orm/migrations';

/** Each outbox text knows its delivery, so the partner's dashboard shows the texts of its own deliveries only. */
export class Migration20261123000000_sms_outbox_delivery extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table sms_outbox add column delivery_id uuid;
create index sms_outbox_delivery_idx on sms_outbox (delivery_id, id) where delivery_id is not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists sms_outbox_delivery_idx; alter table sms_outbox drop column if exists delivery_id;');
  }
}
