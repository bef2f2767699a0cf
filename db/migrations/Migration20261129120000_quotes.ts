import { Migration } from '@mikro-orm/migrations';

/**
 * Quotes a booking may name to pay the fare it was quoted: the partner and mode it was given to,
 * the route priced (pickup, stops, drop-off, in visiting order), the fare in pesewas and when it
 * stops holding. Expired quotes are swept an hour after their expiry, by `expires_at`.
 */
export class Migration20261129120000_quotes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table quotes (
        id uuid primary key,
        partner_id uuid not null references partners(id),
        mode text not null,
        route jsonb not null,
        base_fare integer not null,
        distance_m integer not null,
        distance_fee integer not null,
        service_fee integer not null,
        total_fare integer not null,
        distance_estimated boolean not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null
      );`);
    this.addSql('create index quotes_expires_at_idx on quotes (expires_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists quotes;');
  }
}
