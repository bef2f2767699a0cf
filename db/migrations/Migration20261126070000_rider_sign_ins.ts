import { Migration } from '@mikro-orm/migrations';

/**
 * One-time sign-in codes for the rider app: an operator's link signs one phone in and then stops
 * working. Only a code's hash is kept, like a token's; a used code keeps its row (used_at) so a
 * second try can say it was used rather than unknown.
 */
export class Migration20261126070000_rider_sign_ins extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table if not exists rider_sign_ins (
  code_hash text primary key,
  rider_id uuid not null references riders(id) on delete cascade,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index if not exists rider_sign_ins_rider_idx on rider_sign_ins (rider_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists rider_sign_ins;');
  }
}
