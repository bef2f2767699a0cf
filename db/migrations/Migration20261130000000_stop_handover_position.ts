import { Migration } from '@mikro-orm/migrations';

/**
 * Where each additional stop was handed over, as the final drop's place is kept in its trail
 * entry: the proof of delivery gives partners both.
 */
export class Migration20261130000000_stop_handover_position extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table delivery_stops add column handover_lat double precision, add column handover_lng double precision;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table delivery_stops drop column if exists handover_lat, drop column if exists handover_lng;');
  }
}
