import { Migration } from '@mikro-orm/migrations';

/**
 * Who rides a test-mode delivery (docs/decisions/0168-sandbox-rider.md): `robo` or `manual`, kept
 * so the booking sweeper starts a booking's workflow as its booking asked, and the sandbox's steps
 * are refused for a delivery the robo rider rides. Null in live mode, and for test bookings made
 * before it was kept: those were all ridden by the robo rider.
 */
export class Migration20261130050000_sandbox_rider extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table deliveries add column if not exists sandbox_rider text check (sandbox_rider in ('robo', 'manual'));`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table deliveries drop column if exists sandbox_rider;');
  }
}
