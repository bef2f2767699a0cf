import { Migration } from '@mikro-orm/migrations';

/** The whole schema of the first release. */
export class Migration20261121000000_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table partners (
  id uuid primary key,
  email text not null,
  business_name text not null,
  password_hash text,
  email_confirmed_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index partners_email_key on partners (lower(email));

create table api_keys (
  id uuid primary key,
  partner_id uuid not null references partners(id),
  mode text not null check (mode in ('live', 'test')),
  label text not null,
  prefix text not null,
  key_hash text not null unique,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_partner_idx on api_keys (partner_id, created_at desc);

create table riders (
  id uuid primary key,
  name text not null,
  vehicle text,
  rating numeric(3, 2),
  token_hash text unique,
  is_robo boolean not null default false,
  online boolean not null default false,
  lat double precision,
  lng double precision,
  located_at timestamptz,
  active_delivery_id uuid unique,
  created_at timestamptz not null default now()
);
create index riders_available_idx on riders (online, lat, lng) where active_delivery_id is null and not is_robo;

create table payment_methods (
  id uuid primary key,
  partner_id uuid not null references partners(id),
  mode text not null check (mode in ('live', 'test')),
  provider text not null,
  phone text not null,
  account_name text not null,
  is_default boolean not null default false,
  created_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index payment_methods_partner_idx on payment_methods (partner_id, mode, created_at) where deleted_at is null;
create unique index payment_methods_one_default on payment_methods (partner_id, mode) where is_default and deleted_at is null;

create table deliveries (
  id uuid primary key,
  partner_id uuid not null references partners(id),
  mode text not null check (mode in ('live', 'test')),
  reference text not null,
  status text not null default 'pending',
  payment_status text not null default 'pending',
  payment_method_id uuid not null references payment_methods(id),
  pickup_address text not null,
  pickup_lat double precision not null,
  pickup_lng double precision not null,
  dropoff_address text not null,
  dropoff_lat double precision not null,
  dropoff_lng double precision not null,
  package_size text not null,
  package_description text,
  recipient_name text not null,
  recipient_phone text not null,
  verification_method text not null default 'none',
  scheduled_at timestamptz,
  rider_id uuid references riders(id),
  base_fare integer not null,
  distance_m integer not null,
  distance_fee integer not null,
  service_fee integer not null,
  total_fare integer not null,
  delivered_at timestamptz,
  eta_min integer,
  eta_legs_min jsonb,
  eta_computed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index deliveries_partner_list_idx on deliveries (partner_id, mode, created_at desc, id desc);
create index deliveries_partner_status_idx on deliveries (partner_id, mode, status, created_at desc);
create index deliveries_rider_idx on deliveries (rider_id) where rider_id is not null;

create table delivery_stops (
  delivery_id uuid not null references deliveries(id) on delete cascade,
  position integer not null,
  dropoff_address text not null,
  dropoff_lat double precision not null,
  dropoff_lng double precision not null,
  recipient_name text not null,
  recipient_phone text not null,
  package_size text not null,
  package_description text,
  status text not null default 'pending',
  delivered_at timestamptz,
  primary key (delivery_id, position)
);

create table delivery_events (
  id bigserial primary key,
  delivery_id uuid not null references deliveries(id) on delete cascade,
  status text not null,
  lat double precision,
  lng double precision,
  created_at timestamptz not null,
  unique (delivery_id, status)
);

create table delivery_otps (
  delivery_id uuid not null references deliveries(id) on delete cascade,
  position integer not null,
  code_hash text not null,
  failed_attempts integer not null default 0,
  locked_until timestamptz,
  primary key (delivery_id, position)
);

create table handover_photos (
  delivery_id uuid not null references deliveries(id) on delete cascade,
  position integer not null,
  storage_key text not null,
  content_type text not null,
  size_bytes integer not null,
  created_at timestamptz not null default now(),
  primary key (delivery_id, position)
);

create table rider_offers (
  delivery_id uuid not null references deliveries(id) on delete cascade,
  rider_id uuid not null references riders(id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (delivery_id, rider_id)
);
create index rider_offers_rider_idx on rider_offers (rider_id, expires_at);

create table debits (
  delivery_id uuid primary key references deliveries(id),
  payment_method_id uuid not null references payment_methods(id),
  gateway text not null,
  amount integer not null,
  state text not null default 'pending',
  reason text,
  requested_at timestamptz not null default now(),
  settled_at timestamptz
);

create table sandbox_momo_transactions (
  reference text primary key,
  phone text not null,
  provider text not null,
  amount integer not null,
  state text not null,
  reason text,
  created_at timestamptz not null default now(),
  settle_at timestamptz not null
);

create table webhook_endpoints (
  partner_id uuid not null references partners(id),
  mode text not null check (mode in ('live', 'test')),
  url text,
  secret text,
  updated_at timestamptz not null default now(),
  primary key (partner_id, mode)
);

create table webhook_events (
  id uuid primary key,
  partner_id uuid not null references partners(id),
  mode text not null,
  delivery_id uuid references deliveries(id) on delete cascade,
  event text not null,
  body text not null,
  state text not null default 'pending',
  attempts integer not null default 0,
  created_at timestamptz not null default now(),
  last_attempt_at timestamptz
);
create index webhook_events_partner_idx on webhook_events (partner_id, mode, created_at desc, id desc);
create unique index webhook_events_once on webhook_events (delivery_id, event);

create table webhook_attempts (
  id bigserial primary key,
  event_id uuid not null references webhook_events(id) on delete cascade,
  attempt integer not null,
  url text,
  status_code integer,
  latency_ms integer,
  error text,
  next_retry_at timestamptz,
  created_at timestamptz not null default now()
);
create index webhook_attempts_event_idx on webhook_attempts (event_id, id);

create table sms_outbox (
  id bigserial primary key,
  recipient text not null,
  body text not null,
  created_at timestamptz not null default now()
);
create index sms_outbox_recipient_idx on sms_outbox (recipient, id desc);

create table idempotency_keys (
  partner_id uuid not null references partners(id),
  mode text not null,
  scope text not null,
  key text not null,
  request_hash text not null,
  response_status integer,
  response_body text,
  created_at timestamptz not null default now(),
  primary key (partner_id, mode, scope, key)
);

create table dashboard_sessions (
  id text primary key,
  partner_id uuid not null references partners(id),
  csrf_token text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);

create table email_tokens (
  token_hash text primary key,
  partner_id uuid not null references partners(id),
  purpose text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists email_tokens, dashboard_sessions, idempotency_keys, sms_outbox, webhook_attempts,
  webhook_events, webhook_endpoints, sandbox_momo_transactions, debits, rider_offers, handover_photos,
  delivery_otps, delivery_events, delivery_stops, deliveries, payment_methods, riders, api_keys, partners cascade;
`);
  }
}
