import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { displayPrefix, generateSecret, hashSecret } from '../domain/api-key';

/**
 * Fills the database the way months of traffic would: partners with their keys, accounts and
 * callback URLs, riders all over Greater Accra, and deliveries spread over 90 days with everything
 * the real flow writes for each (the status trail, the debit, the webhook events with their frozen
 * bodies, the offers dispatch made, additional stops). Set-based SQL (`insert … select … from
 * generate_series`), a statement per table, so a million deliveries take minutes, not hours.
 *
 * Usage: tsx bench/seed-growth.ts [--deliveries N] [--partners N] [--riders N] [--partner ID]
 * `--partner ID` gives the deliveries to that existing partner (its default live account) and
 * makes no partners. Reads DATABASE_URL; prints one JSON line of what it made and how long it took.
 */

const { values: args } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '1000000' },
    partners: { type: 'string', default: '1000' },
    riders: { type: 'string', default: '20000' },
    partner: { type: 'string' },
  },
});

function count(name: keyof typeof args): number {
  const value = Number(args[name]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number, got "${args[name]}"`);
  return value;
}

const deliveries = count('deliveries');
const ownPartner = args.partner ?? null;
const partners = ownPartner ? 0 : count('partners');
const riders = count('riders');
if (!ownPartner && deliveries > 0 && partners === 0) throw new Error('--partners must be at least 1 (or name one with --partner)');

/**
 * Where a delivery's life stands, by its number: `(n - 1) % 10000` falls in a bucket, so the
 * shares are exact at any size. A quarter of a percent are still open (waiting for a rider or on
 * the road: an afternoon's worth at this volume), the rest ended: 5 % cancelled (half of them
 * after a rider took the job), 4 % expired without a rider, the others delivered. Every 50th
 * debit of a job that ended failed (the delivery went on: a failed payment never stops dispatch).
 */
const BUCKETS = [
  ['pending', 5],
  ['accepted', 5],
  ['picked_up', 5],
  ['in_transit', 10],
  ['cancelled', 500],
  ['expired', 400],
] as const;

/** The part of each 10,000 that is on the road (accepted, picked up or in transit): [from, to). */
const ROAD = [BUCKETS[0][1], BUCKETS[0][1] + BUCKETS[1][1] + BUCKETS[2][1] + BUCKETS[3][1]] as const;

/** Deliveries on the road among the first `n`: each needs a rider of its own. */
function onTheRoadAmong(n: number): number {
  const share = ROAD[1] - ROAD[0];
  return Math.floor(n / 10000) * share + Math.min(share, Math.max(0, (n % 10000) - ROAD[0]));
}

/** The SQL `case` that names the status of the delivery numbered `n`. */
function statusCase(onTheRoad: boolean): string {
  let upTo = 0;
  const arms = BUCKETS.flatMap(([status, share]) => {
    upTo += share;
    // Without riders of its own the run makes no delivery on the road: each needs a free rider.
    if (!onTheRoad && !['cancelled', 'expired'].includes(status)) return [];
    return [`when (n - 1) % 10000 < ${upTo} then '${status}'`];
  });
  return `case ${arms.join(' ')} else 'delivered' end`;
}

/** Places of Greater Accra the addresses are drawn from. */
const PLACES = [
  'Makola Market', 'Kotoka International Airport', 'Accra Mall, Tetteh Quarshie', 'Osu Oxford Street', 'Labone Junction',
  'East Legon, American House', 'Madina Zongo Junction', 'Achimota Mall', 'Kaneshie Market', 'Dansoman Last Stop',
  'Spintex Road, Coca-Cola Roundabout', 'Tema Community 1', 'Teshie Nungua Estates', 'Legon, University of Ghana',
  'Circle, Kwame Nkrumah Interchange', 'Cantonments, US Embassy', 'Airport Residential Area', 'Adabraka, Tudu', 'Haatso Atomic Junction', 'Weija Junction',
];
const FIRST_NAMES = ['Ama', 'Kofi', 'Akosua', 'Kwame', 'Abena', 'Yaw', 'Efua', 'Kojo', 'Adwoa', 'Kwabena', 'Esi', 'Kwaku', 'Afua', 'Fiifi', 'Yaa', 'Nana'];
const LAST_NAMES = ['Mensah', 'Owusu', 'Boateng', 'Asante', 'Osei', 'Agyeman', 'Addo', 'Appiah', 'Ofori', 'Darko', 'Quaye', 'Tetteh', 'Annan', 'Amoah'];
const VEHICLES = ['Honda Ace 125', 'Haojue HJ125', 'Royal SR150', 'Bajaj Boxer 150', 'TVS HLX 125'];

const sqlArray = (items: readonly string[]) => `array[${items.map((s) => `'${s.replace(/'/g, "''")}'`).join(', ')}]`;

/** Greater Accra, roughly: where riders stand and parcels go. */
const BOX = { lat: [5.53, 5.7], lng: [-0.32, -0.05] } as const;
const randomLat = `(${BOX.lat[0]} + random() * ${BOX.lat[1] - BOX.lat[0]})`;
const randomLng = `(${BOX.lng[0]} + random() * ${BOX.lng[1] - BOX.lng[0]})`;

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set');
  if (riders > 0 && riders < onTheRoadAmong(deliveries)) {
    throw new Error(`--riders must be at least ${onTheRoadAmong(deliveries)}: each delivery on the road has a rider of its own`);
  }
  // Two connections: the tables that only read the plan are filled side by side, one per core.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const started = performance.now();
  const seconds: Record<string, number> = {};
  const timed = async <T>(step: string, work: () => Promise<T>): Promise<T> => {
    const from = performance.now();
    try {
      return await work();
    } finally {
      seconds[step] = Math.round((performance.now() - from) / 100) / 10;
    }
  };
  /** One transaction on a connection of its own, set up for a bulk load. */
  const inTransaction = async (statements: string[], values: unknown[][] = []): Promise<number[]> => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      await bulkSettings(client);
      const rows: number[] = [];
      for (const [i, text] of statements.entries()) rows.push((await client.query(text, values[i] ?? [])).rowCount ?? 0);
      await client.query('commit');
      return rows;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  // Tags this run's emails and names, so seeding twice into one database works.
  const run = Date.now().toString(36);
  const made: Record<string, number> = {};
  try {
    await pool.query('drop table if exists growth_seed_plan, growth_seed_partners, growth_seed_riders, growth_seed_pool, growth_seed_online');

    // Partners, each with a live key (a test key for every other one), a default Mobile Money
    // account per mode, and a callback URL for four in five. Keys are made as createApiKey makes
    // them (the hash of a real secret), so any of them authenticates.
    await timed('partners', async () => {
      const keys = Array.from({ length: partners * 2 }, (_, i) => generateSecret(i % 2 === 0 ? 'live' : 'test'));
      const [, , , k, m, w] = await inTransaction(
        [
          `create unlogged table growth_seed_partners as
             select n, gen_random_uuid() as id, gen_random_uuid() as live_account, gen_random_uuid() as test_account,
               now() - interval '120 days' + random() * interval '25 days' as created_at
             from generate_series(1, $1::int) n`,
          'analyze growth_seed_partners',
          `insert into partners (id, email, business_name, password_hash, email_confirmed_at, created_at)
             select id, 'growth-' || $1::text || '-' || n || '@example.com', 'Growth Shop ' || n || ' Ltd', null, created_at, created_at
             from growth_seed_partners`,
          `insert into api_keys (id, partner_id, mode, label, prefix, key_hash, created_at, last_used_at)
             select gen_random_uuid(), p.id, case when k.i % 2 = 1 then 'live' else 'test' end, 'server', k.prefix, k.hash,
               p.created_at + interval '1 hour', now() - random() * interval '2 days'
             from unnest($1::text[], $2::text[]) with ordinality as k(hash, prefix, i)
             join growth_seed_partners p on p.n = (k.i + 1) / 2
             where k.i % 2 = 1 or p.n % 2 = 0`,
          `insert into payment_methods (id, partner_id, mode, provider, phone, account_name, is_default, created_at)
             select account, id, mode, 'network_a', '+23324' || lpad((1000000 + n)::text, 7, '0'), 'Growth Shop ' || n || ' Ltd', true, created_at
             from growth_seed_partners, lateral (values (live_account, 'live'), (test_account, 'test')) a(account, mode)`,
          `insert into webhook_endpoints (partner_id, mode, url, secret, updated_at)
             select id, 'live', 'https://shop' || n || '.example.com/hooks/delivery', 'whsec_' || md5(random()::text), created_at
             from growth_seed_partners where n % 5 <> 0`,
        ],
        [[partners], [], [run], [keys.map(hashSecret), keys.map(displayPrefix)]],
      );
      made.partners = partners;
      made.apiKeys = k ?? 0;
      made.paymentMethods = m ?? 0;
      made.webhookEndpoints = w ?? 0;
    });

    // Riders over Greater Accra, a quarter of them online (and those on the road, further down);
    // their tokens are never used, so each is the hash of a random value. Those online reported a
    // position in the last few minutes.
    await timed('riders', async () => {
      const [, r] = await inTransaction([
        `create unlogged table growth_seed_riders as
           select n, gen_random_uuid() as id, ${randomLat} as lat, ${randomLng} as lng, n % 4 = 0 as online
           from generate_series(1, $1::int) n`,
        `insert into riders (id, name, vehicle, rating, token_hash, token_expires_at, is_robo, online, lat, lng, located_at, phone, created_at)
           select id,
             (${sqlArray(FIRST_NAMES)})[1 + n % ${FIRST_NAMES.length}] || ' ' || (${sqlArray(LAST_NAMES)})[1 + (n / ${FIRST_NAMES.length}) % ${LAST_NAMES.length}],
             (${sqlArray(VEHICLES)})[1 + n % ${VEHICLES.length}], round((3.5 + random() * 1.5)::numeric, 2),
             encode(sha256(convert_to(gen_random_uuid()::text, 'UTF8')), 'hex'), now() + interval '20 days', false, online, lat, lng,
             case when online then now() - random() * interval '3 minutes' else now() - random() * interval '30 days' end,
             '+23320' || lpad((1000000 + n)::text, 7, '0'), now() - interval '200 days' + random() * interval '100 days'
           from growth_seed_riders`,
        // Numbered pools to draw riders from by arithmetic (a hash join, not an array in every row):
        // jobs that ended were ridden by any rider, this run's or, when it makes none, those already there.
        `create unlogged table growth_seed_pool as
           select row_number() over (order by id) as k, id from riders where not is_robo and ($1::int = 0 or id in (select id from growth_seed_riders))`,
        `create unlogged table growth_seed_online as
           select row_number() over (order by id) as k, id from riders where not is_robo and ($1::int = 0 or id in (select id from growth_seed_riders where online))`,
        'analyze growth_seed_riders, growth_seed_pool, growth_seed_online',
      ], [[riders], [], [riders], [riders]]);
      made.riders = r ?? 0;
    });
    const poolSizes = (await pool.query<{ all: number; online: number }>(
      'select (select count(*) from growth_seed_pool)::int as all, (select count(*) from growth_seed_online)::int as online',
    )).rows[0] ?? { all: 0, online: 0 };

    // The plan: every delivery's owner, route, status, rider and the time of each step it
    // reached, with the text its answers and callbacks are made of, in an unlogged table that
    // every later statement reads, so each table is filled by one statement.
    await timed('plan', async () => {
      const onTheRoad = riders > 0;
      const owner = ownPartner
        ? `(select $3::uuid as id, (select id from payment_methods where partner_id = $3::uuid and mode = 'live' and is_default and deleted_at is null) as live_account,
             null::uuid as test_account) p`
        : // A few partners send most of the parcels, as in any market: the square skews the draw.
          `growth_seed_partners p`;
      const ownerDraw = ownPartner ? '1' : `1 + least(${partners} - 1, floor(${partners} * power(random(), 2))::int)`;
      const ownerMatch = ownPartner ? 'true' : 'p.n = x.partner_n';
      const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
      // Inside these objects no member starts or ends with a brace, so trimming braces leaves the members.
      const object = (json: string) => `btrim((${json})::text, '{}')`;
      // The plan's rows for deliveries numbered $1 to $2 ($3: the partner named with --partner).
      const planRows = `
         with base as materialized (
           -- Materialized: each random() is drawn once per delivery, and joins on the draws can hash.
           select n, gen_random_uuid() as id, ${statusCase(onTheRoad)} as status, ${ownerDraw} as partner_n,
             ${randomLat} as pickup_lat, ${randomLng} as pickup_lng,
             -- A drop-off a few kilometres off, as most parcels in town go.
             random() * 0.06 - 0.03 as dlat, random() * 0.06 - 0.03 as dlng,
             1 + (random() * ${PLACES.length - 1})::int as pickup_place, 1 + (random() * ${PLACES.length - 1})::int as dropoff_place,
             -- Minutes: booking to accept, accept to pickup, pickup to departure, departure to drop-off.
             1 + random() * 7 as m_accept, 5 + random() * 15 as m_pickup, 0.5 + random() * 1.5 as m_depart, 10 + random() * 30 as m_drop,
             case when (n - 1) % 10 = 3 then 1 when (n - 1) % 25 = 4 then 2 else 0 end as stops
           from generate_series($1::int, $2::int) n),
         timed as (
           select b.*,
             case status
               when 'pending' then now() - random() * interval '10 minutes'
               when 'accepted' then now() - make_interval(secs => 60 * m_accept) - random() * interval '5 minutes'
               when 'picked_up' then now() - make_interval(secs => 60 * (m_accept + m_pickup)) - random() * interval '1 minute'
               when 'in_transit' then now() - make_interval(secs => 60 * (m_accept + m_pickup + m_depart)) - random() * make_interval(secs => 60 * m_drop)
               else now() - interval '2 hours' - random() * interval '90 days'
             end as created_at,
             -- The jobs on the road numbered 1, 2, … in the order of n, worked out from n alone, so halves of the plan are made apart.
             case when ${onTheRoad} and (n - 1) % 10000 >= ${ROAD[0]} and (n - 1) % 10000 < ${ROAD[1]}
               then (n - 1) / 10000 * ${ROAD[1] - ROAD[0]} + (n - 1) % 10000 - ${ROAD[0]} + 1 end as road_rank
           from base b),
         planned as (
           select x.n, x.id, x.status, p.id as partner_id, x.created_at, x.pickup_lat, x.pickup_lng,
             least(${BOX.lat[1]}, greatest(${BOX.lat[0]}, x.pickup_lat + x.dlat)) as dropoff_lat,
             least(${BOX.lng[1]}, greatest(${BOX.lng[0]}, x.pickup_lng + x.dlng)) as dropoff_lng,
             x.pickup_place, x.dropoff_place, x.stops, x.road_rank,
             -- A twentieth of the jobs that ended were booked with a test key.
             case when x.road_rank is null and x.status <> 'pending' and x.n % 20 = 7 and p.test_account is not null then 'test' else 'live' end as mode,
             p.live_account, p.test_account,
             case when x.status in ('accepted', 'picked_up', 'in_transit', 'delivered') or (x.status = 'cancelled' and x.n % 2 = 0)
               then x.created_at + make_interval(secs => 60 * x.m_accept) end as accepted_at,
             case when x.status in ('picked_up', 'in_transit', 'delivered') then x.created_at + make_interval(secs => 60 * (x.m_accept + x.m_pickup)) end as picked_up_at,
             case when x.status in ('in_transit', 'delivered') then x.created_at + make_interval(secs => 60 * (x.m_accept + x.m_pickup + x.m_depart)) end as in_transit_at,
             case x.status
               when 'delivered' then x.created_at + make_interval(secs => 60 * (x.m_accept + x.m_pickup + x.m_depart + x.m_drop))
               -- Half the cancellations came before a rider took the job, half after.
               when 'cancelled' then x.created_at + make_interval(secs => 60 * (x.m_accept + case when x.n % 2 = 0 then 2 else -0.5 end))
               when 'expired' then x.created_at + interval '15 minutes'
             end as ended_at,
             case when x.road_rank is null and x.status <> 'pending' and x.n % 50 = 17 then 'failed' else 'paid' end as payment_status,
             (array['none', 'none', 'none', 'otp', 'otp', 'photo'])[1 + x.n % 6] as verification_method,
             (array['small', 'small', 'medium', 'medium', 'large'])[1 + x.n % 5] as package_size
           from timed x join ${owner} on ${ownerMatch}),
         ridden as (
           select q.*, case when q.mode = 'live' then q.live_account else q.test_account end as account,
             -- Each job on the road has a free rider of its own (riders.active_delivery_id is unique);
             -- a test job its own robo rider, as the robo rider activity makes one per test delivery.
             case when q.accepted_at is null then null
               when q.road_rank is not null then road.id
               when q.mode = 'test' then gen_random_uuid()
               else hist.id end as rider_id,
             -- Road distance: the straight line with a detour factor, as the offline routing provider has it.
             round(1.3 * 1000 * 6371.0088 * 2 * asin(sqrt(power(sin(radians(q.dropoff_lat - q.pickup_lat) / 2), 2)
               + cos(radians(q.pickup_lat)) * cos(radians(q.dropoff_lat)) * power(sin(radians(q.dropoff_lng - q.pickup_lng) / 2), 2))))::int as distance_m
           from planned q
           left join growth_seed_riders road on road.n = q.road_rank
           left join growth_seed_pool hist on hist.k = 1 + (q.n::bigint * 7919) % ${Math.max(1, poolSizes.all)}),
         priced as (
           -- The rate card (domain/pricing.ts): 10 cedis, 2.50 a km on the shown distance (rounded half up to the pesewa), 2 cedis service.
           select r.*, (round(r.distance_m / 10.0)::int * 250 + 50) / 100 as distance_fee from ridden r),
         named as (
           select c.*, 1000 + c.distance_fee + 200 as total_fare,
             'DLV-' || upper(substr(replace(c.id::text, '-', ''), 1, 8)) as reference,
             (${sqlArray(PLACES)})[c.pickup_place] || ', Accra' as pickup_address,
             (${sqlArray(PLACES)})[c.dropoff_place] || ', Accra' as dropoff_address,
             (${sqlArray(FIRST_NAMES)})[1 + c.n % ${FIRST_NAMES.length}] || ' ' || (${sqlArray(LAST_NAMES)})[1 + (c.n / 7) % ${LAST_NAMES.length}] as recipient_name,
             '+23324' || lpad((c.n % 10000000)::text, 7, '0') as recipient_phone,
             case when c.n % 3 = 0 then 'Parcel ' || c.n end as package_description,
             ${iso('c.created_at')} as iso_created, ${iso('c.accepted_at')} as iso_accepted, ${iso('c.picked_up_at')} as iso_picked_up,
             ${iso('c.in_transit_at')} as iso_in_transit, ${iso('c.ended_at')} as iso_ended
           from priced c)
         -- The members of the Delivery (domain/delivery-view.ts) that no status change alters, for the webhook bodies.
         select d.*,
           ${object(`json_build_object('pickup_address', d.pickup_address, 'pickup_lat', d.pickup_lat, 'pickup_lng', d.pickup_lng,
             'dropoff_address', d.dropoff_address, 'dropoff_lat', d.dropoff_lat, 'dropoff_lng', d.dropoff_lng, 'package_size', d.package_size,
             'package_description', d.package_description, 'recipient_name', d.recipient_name, 'recipient_phone', d.recipient_phone)`)} as view_route,
           ${object(`json_build_object('base_fare', 10, 'distance_km', round(d.distance_m / 10.0) / 100, 'distance_fee', round(d.distance_fee / 100.0, 2),
             'service_fee', 2, 'total_fare', round(d.total_fare / 100.0, 2), 'payment_method', 'gateway', 'payment_method_id', d.account)`)} as view_money,
           ${object(`json_build_object('verification_method', d.verification_method, 'scheduled_at', null, 'additional_stops', '[]'::json,
             'tracking_url', 'https://deliveries.example.com/track?id=' || d.id, 'created_at', d.iso_created)`)} as view_rest
         from named d`;
      const values = (from: number, to: number) => (ownPartner ? [from, to, ownPartner] : [from, to]);
      await inTransaction([`create unlogged table growth_seed_plan as ${planRows} with no data`], [values(1, 0)]);
      // Two halves at once, one per connection.
      const half = Math.floor(deliveries / 2);
      await Promise.all([
        inTransaction([`insert into growth_seed_plan ${planRows}`], [values(1, half)]),
        inTransaction([`insert into growth_seed_plan ${planRows}`], [values(half + 1, deliveries)]),
      ]);
      const [, robos] = await inTransaction([
        'analyze growth_seed_plan',
        `insert into riders (id, name, vehicle, rating, is_robo, online, lat, lng, located_at, created_at)
         select rider_id, 'Robo Rider', 'Test motorbike', 5, true, true, dropoff_lat, dropoff_lng, ended_at, accepted_at
         from growth_seed_plan where mode = 'test' and rider_id is not null`,
      ]);
      made.roboRiders = robos ?? 0;
    });

    // The tables themselves, on two connections at once. Nothing reads them meanwhile and the
    // plan is consistent, so foreign-key triggers are off for the load where the role may do that.
    // Rows go in in time order, as production writes them: a delivery's trail is spread over the
    // table's pages, not packed together, so reading it costs what it costs there.
    const deliveriesTable = () =>
      inTransaction([
        `insert into deliveries (id, partner_id, mode, reference, status, payment_status, payment_method_id, pickup_address, pickup_lat, pickup_lng,
           dropoff_address, dropoff_lat, dropoff_lng, package_size, package_description, recipient_name, recipient_phone, verification_method,
           scheduled_at, rider_id, base_fare, distance_m, distance_fee, service_fee, total_fare, delivered_at,
           created_at, updated_at, workflow_claimed_at)
         select id, partner_id, mode, reference, status, payment_status, account, pickup_address, pickup_lat, pickup_lng,
           dropoff_address, dropoff_lat, dropoff_lng, package_size, package_description, recipient_name, recipient_phone, verification_method,
           null, rider_id, 1000, distance_m, distance_fee, 200, total_fare, case when status = 'delivered' then ended_at end,
           -- Each was claimed by its workflow at once, so the booking sweeper leaves every one alone.
           created_at, coalesce(ended_at, in_transit_at, picked_up_at, accepted_at, created_at), created_at + interval '50 milliseconds'
         from growth_seed_plan order by created_at`,
        // Jobs on the road have a recent ETA, as their tracking pages keep it fresh.
        `insert into delivery_etas (delivery_id, eta_min, eta_legs_min, computed_at)
         select id, 5 + n % 30, (case when stops = 0 then '[]' else '[8]' end)::jsonb, now() - random() * interval '20 seconds'
         from growth_seed_plan where road_rank is not null order by created_at`,
        // Additional stops: one for a tenth of the deliveries, two for a twenty-fifth.
        `insert into delivery_stops (delivery_id, position, dropoff_address, dropoff_lat, dropoff_lng, recipient_name, recipient_phone, package_size,
           package_description, status, delivered_at)
         select p.id, s.position, (${sqlArray(PLACES)})[1 + (p.dropoff_place + s.position + 3) % ${PLACES.length}] || ', Accra',
           p.dropoff_lat + 0.004 * (s.position + 1), p.dropoff_lng - 0.003 * (s.position + 1), 'Kwesi Arthur', '+23325' || lpad((p.n % 10000000)::text, 7, '0'),
           'small', null, case when p.status = 'delivered' then 'delivered' else 'pending' end,
           case when p.status = 'delivered' then p.in_transit_at + (p.ended_at - p.in_transit_at) * (s.position + 1) / (p.stops + 1) end
         from growth_seed_plan p cross join lateral generate_series(0, p.stops - 1) as s(position)
         order by p.created_at`,
        // Every booking requests a debit; each of these has settled, with the gateway's word on it,
        // so debit reconciliation has nothing to look at.
        `insert into debits (delivery_id, payment_method_id, gateway, amount, state, reason, requested_at, settled_at, gateway_confirmed, partner_id, mode)
         select id, account, 'sandbox', total_fare, payment_status, case when payment_status = 'failed' then 'Insufficient funds' end,
           created_at + interval '100 milliseconds', created_at + interval '2 seconds', true, partner_id, mode
         from growth_seed_plan order by created_at`,
      ]);
    // One trail entry per status reached, where it happened (a booking carries no position).
    const trail = `
      select p.*, e.step, e.at, e.iso_at, e.lat, e.lng, e.ord from growth_seed_plan p cross join lateral (values
        ('pending', p.created_at, p.iso_created, null::float8, null::float8, 0),
        ('accepted', p.accepted_at, p.iso_accepted, p.pickup_lat + 0.01, p.pickup_lng - 0.01, 1),
        ('picked_up', p.picked_up_at, p.iso_picked_up, p.pickup_lat, p.pickup_lng, 2),
        ('in_transit', p.in_transit_at, p.iso_in_transit, p.pickup_lat + 0.001, p.pickup_lng + 0.001, 3),
        (p.status, case when p.status in ('delivered', 'cancelled', 'expired') then p.ended_at end, p.iso_ended,
          case when p.status = 'delivered' then p.dropoff_lat end, case when p.status = 'delivered' then p.dropoff_lng end, 4)
      ) as e(step, at, iso_at, lat, lng, ord) where e.at is not null`;
    const eventsTable = () =>
      inTransaction([`insert into delivery_events (delivery_id, status, lat, lng, created_at) select id, step, lat, lng, at from (${trail}) t order by at, ord`]);
    // Every status change froze a webhook event's body: the Delivery as it was then (its trail up to
    // that change, the rider once one had taken the job), sent where the partner has a URL and
    // skipped where it has none. The largest table by far, as in production; written on one
    // connection while the other writes the rest.
    const trailSoFar = (item: (step: string, iso: string) => string) => `'[' || ${item("'pending'", 't.iso_created')}
      || case when t.ord >= 1 and t.accepted_at is not null then ',' || ${item("'accepted'", 't.iso_accepted')} else '' end
      || case when t.ord >= 2 and t.picked_up_at is not null then ',' || ${item("'picked_up'", 't.iso_picked_up')} else '' end
      || case when t.ord >= 3 and t.in_transit_at is not null then ',' || ${item("'in_transit'", 't.iso_in_transit')} else '' end
      || case when t.ord = 4 then ',' || ${item('t.step', 't.iso_ended')} else '' end || ']'`;
    const webhooksTable = async () => {
      // Its own indexes (none that backs a constraint) are built once at the end rather than kept
      // up row by row: millions of 1.5 kB rows go in far faster. The table is locked meanwhile;
      // nothing writes callbacks while the bench seeds.
      const { rows: indexes } = await pool.query<{ name: string; definition: string }>(
        `select i.relname as name, pg_get_indexdef(i.oid) as definition
         from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
         where t.oid = 'webhook_events'::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.oid)`,
      );
      const counts = await inTransaction([
        ...indexes.map((index) => `drop index ${index.name}`),
        `insert into webhook_events (id, partner_id, mode, delivery_id, event, body, state, attempts, created_at, last_attempt_at)
         select gen_random_uuid(), t.partner_id, t.mode, t.id, 'delivery.' || t.step,
           '{"event":"delivery.' || t.step || '","delivery_id":"' || t.id || '","status":"' || t.step
             || '","occurred_at":"' || replace(t.iso_at, 'Z', '+00:00') || '","data":{"id":"' || t.id || '","reference":"' || t.reference
             || '","status":"' || t.step || '",' || t.view_route
             || ',"rider_id":' || case when t.ord >= 1 and t.rider_id is not null then '"' || t.rider_id || '"' else 'null' end
             || ',"rider":' || case when t.ord >= 1 and t.rider_id is not null
                  then '{"id":"' || t.rider_id || '","name":"Kofi M.","vehicle":"Honda Ace 125","rating":4.8}' else 'null' end
             || ',' || t.view_money || ',"payment_status":"' || t.payment_status || '",' || t.view_rest
             || ',"delivered_at":' || case when t.step = 'delivered' then '"' || t.iso_ended || '"' else 'null' end
             || ',"events":' || ${trailSoFar((step, at) => `'{"status":"' || ${step} || '","created_at":"' || ${at} || '"}'`)} || '}}',
           case when e.url is null then 'skipped' else 'delivered' end, case when e.url is null then 0 else 1 end,
           t.at, case when e.url is null then null else t.at + interval '300 milliseconds' end
         from (${trail}) t left join webhook_endpoints e on e.partner_id = t.partner_id and e.mode = t.mode
         where t.step <> 'pending'`,
        ...indexes.map((index) => index.definition),
      ]);
      return [counts[indexes.length] ?? 0];
    };
    // Dispatch offered each job to the rider who took it and to a couple of others; the offers
    // were withdrawn (expired) when the job left pending. Jobs still pending hold live offers.
    const offersTable = () =>
      inTransaction([
        `insert into rider_offers (delivery_id, rider_id, created_at, expires_at)
         select p.id, o.rider_id, p.created_at + interval '1 second', coalesce(p.accepted_at, p.ended_at, p.created_at + interval '15 minutes')
         from growth_seed_plan p
         left join growth_seed_online a on a.k = 1 + (p.n::bigint * 31) % ${Math.max(1, poolSizes.online)}
         left join growth_seed_online b on b.k = 1 + (p.n::bigint * 97 + 5) % ${Math.max(1, poolSizes.online)}
         cross join lateral (values (p.rider_id), (a.id), (b.id)) o(rider_id)
         where p.mode = 'live' and o.rider_id is not null
         order by p.created_at
         on conflict do nothing`,
      ]);
    await timed('tables', async () => {
      const side = async (steps: [string, () => Promise<number[]>][]) => {
        const out: number[][] = [];
        for (const [name, step] of steps) out.push(await timed(name, step));
        return out;
      };
      // The deliveries' statements write deliveries, their kept ETAs, stops and debits, in that order.
      const [[[d, , s, b], [o], [e]], [[w]]] = (await Promise.all([
        side([['deliveries', deliveriesTable], ['offers', offersTable], ['events', eventsTable]]),
        side([['webhook events', webhooksTable]]),
      ])) as [[number[], number[], number[]], [number[]]];
      Object.assign(made, { deliveries: d ?? 0, stops: s ?? 0, debits: b ?? 0, offers: o ?? 0, events: e ?? 0, webhookEvents: w ?? 0 });
    });

    // The riders on the road hold their jobs, online, near the pickup or on the way.
    await timed('riders on the road', async () => {
      const [held] = await inTransaction([
        `update riders r set active_delivery_id = p.id, online = true, located_at = now() - random() * interval '10 seconds',
           lat = case when p.status = 'in_transit' then (p.pickup_lat + p.dropoff_lat) / 2 else p.pickup_lat + 0.002 end,
           lng = case when p.status = 'in_transit' then (p.pickup_lng + p.dropoff_lng) / 2 else p.pickup_lng + 0.002 end
         from growth_seed_plan p where p.road_rank is not null and p.rider_id = r.id`,
      ]);
      made.ridersOnTheRoad = held ?? 0;
    });

    await timed('analyze', async () => {
      await pool.query('drop table if exists growth_seed_plan, growth_seed_partners, growth_seed_riders, growth_seed_pool, growth_seed_online');
      // Fresh statistics, as autovacuum would gather them in a while, so the plans are the ones a settled database gets.
      await Promise.all([
        pool.query('vacuum (analyze) deliveries, delivery_etas, delivery_stops, debits, riders, partners, api_keys, payment_methods, webhook_endpoints'),
        pool.query('vacuum (analyze) delivery_events, rider_offers, webhook_events'),
      ]);
    });
  } finally {
    await pool.query('drop table if exists growth_seed_plan, growth_seed_partners, growth_seed_riders, growth_seed_pool, growth_seed_online').catch(() => undefined);
    await pool.end();
  }
  process.stdout.write(
    `${JSON.stringify({ ...made, ownPartner, seconds: Math.round((performance.now() - started) / 100) / 10, steps: seconds, run })}\n`,
  );
}

/**
 * A bulk load's settings, for this transaction only: no wait for the WAL flush at commit (a crash
 * loses the seed, not the database), memory for sorts and index builds, and no foreign-key
 * triggers where the role may turn them off (the plan's rows are consistent by construction).
 */
async function bulkSettings(client: pg.PoolClient): Promise<void> {
  await client.query("set local synchronous_commit = off; set local work_mem = '256MB'; set local maintenance_work_mem = '512MB'");
  await client.query('savepoint replica');
  try {
    await client.query("set local session_replication_role = 'replica'");
  } catch {
    await client.query('rollback to savepoint replica');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
