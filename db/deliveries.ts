import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyMode } from '../domain/api-key';
import type { DeliveryParts, LiveFields } from '../domain/delivery-view';
import { ETA_REFRESH_SECONDS, type KeptEta } from '../domain/eta';
import type { FareChange } from '../domain/fare-change';
import type { DeliveryStatus } from '../domain/lifecycle';
import { DeliverySchema, type Delivery, type DeliveryEvent, type DeliveryStop, type Rider } from './entities';
import { poolQuery, type PoolQuery } from './pool-query';

/** A partner's deliveries and the reads every answer about a delivery is built from. */

/**
 * A version of a delivery's answers: one string that changes whenever their settled part may. It
 * is the version of the delivery's row (Postgres' `xmin` changes with every update of a row;
 * every write that shows in an answer updates it: transitions, payment, stops, changes) and the
 * rider's fields the answers show: name, vehicle and rating. Not the rider row's own version:
 * that changes with every ping, and with every change of the rider, the jobs they take after this
 * one included. What moves without it, where the rider is and the ETA (kept in `delivery_etas`,
 * apart from the row), is read afresh on every request and placed in the kept answer.
 * `d` is the delivery.
 */
export const DELIVERY_VERSION_SQL = `d.xmin::text || '/' || coalesce((select (r.name, r.vehicle, r.rating)::text from riders r where r.id = d.rider_id), '-')`;

/** The kept ETA of `kept` (delivery_etas) as JSON, with whether it is fresh by the database clock; null when there is none. */
export const KEPT_ETA_SQL = `case when kept.delivery_id is not null then json_build_object('finalMin', kept.eta_min, 'legsMin', kept.eta_legs_min, 'times', kept.eta_times,
    'fresh', coalesce(kept.computed_at > now() - make_interval(secs => ${ETA_REFRESH_SECONDS}), false)) end`;

/**
 * The version of one delivery, who owns it, and its live fields: the one query of a poll whose
 * answer is kept (the partner's record, the tracking view). Prepared once per connection, off the
 * ORM's layers.
 */
const VERSION_WITH_LIVE_QUERY = {
  name: 'delivery-version-live',
  text: `select ${DELIVERY_VERSION_SQL} as version, d.partner_id, d.mode, r.lat, r.lng, to_json(r.located_at) as located_at, ${KEPT_ETA_SQL} as eta
         from deliveries d left join riders r on r.id = d.rider_id left join delivery_etas kept on kept.delivery_id = d.id
         where d.id = $1`,
};

export interface VersionWithLive {
  version: string;
  partnerId: string;
  mode: string;
  live: LiveFields;
}

/** See VERSION_WITH_LIVE_QUERY; null when there is no such delivery. */
export async function versionWithLive(em: EntityManager, id: string): Promise<VersionWithLive | null> {
  type Row = { version: string; partner_id: string; mode: string; lat: number | null; lng: number | null; located_at: string | null; eta: KeptEta | null };
  const [row] = (await poolQuery(em).query<Row>({ ...VERSION_WITH_LIVE_QUERY, values: [id] })).rows;
  if (!row) return null;
  const position = row.lat !== null && row.lng !== null ? { lat: row.lat, lng: row.lng, locatedAt: row.located_at === null ? null : new Date(row.located_at) } : null;
  return { version: row.version, partnerId: row.partner_id, mode: row.mode, live: { position, eta: row.eta } };
}

/** Whether a delivery's row is committed: the first step of every delivery workflow asks it. */
const EXISTS_QUERY = { name: 'delivery-exists', text: 'select 1 from deliveries where id = $1' };

export async function exists(em: EntityManager, id: string): Promise<boolean> {
  return (await poolQuery(em).query({ ...EXISTS_QUERY, values: [id] })).rows.length === 1;
}

/**
 * Reads of whole deliveries (the row, its stops, its status trail, its fare changes, its rider and its ETA) in ONE query:
 * Postgres assembles each delivery as a JSON document, so a read costs one round trip and no
 * ORM hydration. These are the hottest reads of the service (every fetch, every public tracking
 * poll, every webhook body), and on a busy host each extra round trip costs more than the query.
 */
/** The parts' query, with the rider `riderSql` names (the delivery's own: `d.rider_id`). */
const partsSql = (riderSql: string) => `
  select json_build_object(
    'delivery', row_to_json(d),
    'stops', coalesce((select json_agg(s order by s.position) from delivery_stops s where s.delivery_id = d.id), '[]'::json),
    'events', coalesce((select json_agg(e order by e.created_at, e.id) from delivery_events e where e.delivery_id = d.id), '[]'::json),
    'fare_changes', coalesce((select json_agg(json_build_object(
        'seq', f.seq, 'previous_total_fare', f.previous_total_fare, 'total_fare', f.total_fare, 'debit_amount', f.debit_amount,
        'debit_state', case when f.debit_amount > 0 then coalesce(b.state, 'pending') end, 'created_at', f.created_at) order by f.seq)
      from fare_changes f left join debits b on b.delivery_id = f.delivery_id and b.change_seq = f.seq
      where f.delivery_id = d.id), '[]'::json),
    'rider', (select row_to_json(r) from (
      select id, name, vehicle, rating, is_robo, online, lat, lng, located_at, active_delivery_id, created_at
      from riders where id = ${riderSql}) r),
    'eta', ${KEPT_ETA_SQL}
  ) as parts,
  ${DELIVERY_VERSION_SQL} as version
  from deliveries d left join delivery_etas kept on kept.delivery_id = d.id`;
const PARTS_SQL = partsSql('d.rider_id');

type Row = Record<string, unknown>;

/** Column name → property name, worked out once per column (these reads run on every poll). */
const propertyNames = new Map<string, string>();
function camel(column: string): string {
  let name = propertyNames.get(column);
  if (name === undefined) {
    name = column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    propertyNames.set(column, name);
  }
  return name;
}

/** Snake-case JSON of a row to the entity's shape; timestamps (ISO 8601 in JSON) become Dates. */
function entity<T>(row: Row, dates: readonly string[]): T {
  const out: Row = {};
  for (const key in row) out[camel(key)] = row[key];
  for (const key of dates) if (typeof out[key] === 'string') out[key] = new Date(out[key] as string);
  return out as T;
}

const DELIVERY_DATES = ['scheduledAt', 'deliveredAt', 'createdAt', 'updatedAt'] as const;

function toParts(json: { delivery: Row; stops: Row[]; events: Row[]; fare_changes: Row[]; rider: Row | null; eta: KeptEta | null }): DeliveryParts {
  return {
    delivery: entity<Delivery>(json.delivery, DELIVERY_DATES),
    stops: json.stops.map((s) => entity<DeliveryStop>(s, ['deliveredAt'])),
    events: json.events.map((e) => entity<DeliveryEvent>(e, ['createdAt'])),
    fareChanges: json.fare_changes.map((f) => entity<FareChange>(f, ['createdAt'])),
    rider: json.rider ? entity<Rider>(json.rider, ['locatedAt', 'createdAt']) : null,
    eta: json.eta,
  };
}

/** The parts of many deliveries, in their order, in one query whatever the page size (no N+1). */
export async function loadParts(em: EntityManager, deliveries: Delivery[]): Promise<DeliveryParts[]> {
  if (deliveries.length === 0) return [];
  const rows = await em.execute<{ parts: Parameters<typeof toParts>[0] }[]>(
    `${PARTS_SQL} where d.id in (${deliveries.map(() => '?').join(', ')})`,
    deliveries.map((d) => d.id),
  );
  const byId = new Map(rows.map((row) => [row.parts.delivery.id as string, toParts(row.parts)]));
  return deliveries.flatMap((d) => byId.get(d.id) ?? []);
}

export async function load(em: EntityManager, id: string): Promise<DeliveryParts | null> {
  return (await loadVersioned(em, id))?.parts ?? null;
}

const PARTS_QUERY = { name: 'delivery-parts', text: `${PARTS_SQL} where d.id = $1` };

/** One delivery's parts and the version they were read at (see DELIVERY_VERSION_SQL). */
export async function loadVersioned(em: EntityManager, id: string): Promise<{ parts: DeliveryParts; version: string } | null> {
  return readVersioned(poolQuery(em), id);
}

/**
 * The same on a given client: inside a transaction, its client, so the parts include the
 * transaction's own writes (a webhook body is frozen that way).
 */
export async function readVersioned(client: PoolQuery, id: string): Promise<{ parts: DeliveryParts; version: string } | null> {
  type PartsRow = { parts: Parameters<typeof toParts>[0]; version: string };
  const [row] = (await client.query<PartsRow>({ ...PARTS_QUERY, values: [id] })).rows;
  return row ? { parts: toParts(row.parts), version: row.version } : null;
}

const PARTS_FOR_CHANGE_QUERY = { name: 'delivery-parts-for-change', text: `${partsSql('coalesce($2::uuid, d.rider_id)')} where d.id = $1` };

/**
 * One delivery's parts as a status change finds them, with `riderId`'s row for its rider when
 * given (the rider an accept hands the job to), else the delivery's own: what the change's ETA is
 * worked out from and its webhook body built on (db/transitions.ts).
 */
export async function readForChange(em: EntityManager, id: string, riderId: string | null): Promise<DeliveryParts | null> {
  type PartsRow = { parts: Parameters<typeof toParts>[0] };
  const [row] = (await poolQuery(em).query<PartsRow>({ ...PARTS_FOR_CHANGE_QUERY, values: [id, riderId] })).rows;
  return row ? toParts(row.parts) : null;
}

/** A page of a partner's deliveries in one mode, newest first, optionally of one status. */
export function findForPartner(
  em: EntityManager,
  { partnerId, mode, status }: { partnerId: string; mode: KeyMode; status?: string },
  page: { limit: number; offset: number },
): Promise<Delivery[]> {
  return em.find(
    DeliverySchema,
    { partnerId, mode, ...(status ? { status: status as DeliveryStatus } : {}) },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.limit, offset: page.offset },
  );
}

/** The delivery's row, or null when there is no such delivery. */
export function find(em: EntityManager, id: string): Promise<Delivery | null> {
  return em.findOne(DeliverySchema, { id });
}

/** The delivery's row; MikroORM's NotFoundError when there is none. */
export function get(em: EntityManager, id: string): Promise<Delivery> {
  return em.findOneOrFail(DeliverySchema, { id });
}

/** The delivery's status as recorded, or null when there is no such delivery. */
export async function statusOf(em: EntityManager, id: string): Promise<DeliveryStatus | null> {
  return (await find(em, id))?.status ?? null;
}
