import { Migration } from '@mikro-orm/migrations';

/**
 * A hand-over photo is stored before the workflow decides on its hand-over: each upload is kept
 * under a key of its own in `handover_photo_uploads` until then. The workflow's write of the
 * accepted hand-over moves its photo into `handover_photos`; a refused one's is removed with its
 * file, and one nobody decided on is removed by the retention round after a day.
 */
export class Migration20261207000000_handover_photo_uploads extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table if not exists handover_photo_uploads (
  storage_key text primary key,
  delivery_id uuid not null references deliveries(id) on delete cascade,
  position integer not null,
  content_type text not null,
  size_bytes integer not null,
  created_at timestamptz not null default now()
);
create index if not exists handover_photo_uploads_created_at_idx on handover_photo_uploads (created_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists handover_photo_uploads;');
  }
}
