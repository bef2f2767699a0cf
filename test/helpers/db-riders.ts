import type { Orm } from '../../db/orm';
import { poolQuery } from '../../db/pool-query';
import { ago, rows, write, type Age } from './db';

/** A rider's row as stored (every column: tests look for secrets in all of it). */
export interface RiderRow {
  id: string;
  name: string;
  phone: string | null;
  vehicle: string | null;
  rating: string | null;
  token_hash: string | null;
  token_expires_at: Date | null;
  online: boolean;
  lat: number | null;
  lng: number | null;
  active_delivery_id: string | null;
  [column: string]: unknown;
}

export async function riderRow(orm: Orm, riderId: string): Promise<RiderRow | undefined> {
  const [row] = await rows<RiderRow>(orm, 'select * from riders where id = ?', [riderId]);
  return row;
}

/** Where Postgres has each of the given riders now, by id. */
export async function riderPositions(orm: Orm, riderIds: readonly string[]): Promise<Map<string, { lat: number; lng: number }>> {
  if (riderIds.length === 0) return new Map();
  const found = await rows<{ id: string; lat: number; lng: number }>(orm, 'select id, lat, lng from riders where id in (?)', [[...riderIds]]);
  return new Map(found.map((r) => [r.id, { lat: r.lat, lng: r.lng }]));
}

export async function riderIdsNamed(orm: Orm, name: string): Promise<string[]> {
  return (await rows<{ id: string }>(orm, 'select id from riders where name = ?', [name])).map((r) => r.id);
}

/** Whole days until the rider's token expires. */
export async function riderTokenDaysLeft(orm: Orm, riderId: string): Promise<number | undefined> {
  const [row] = await rows<{ days: string }>(orm, 'select round(extract(epoch from token_expires_at - now()) / 86400) as days from riders where id = ?', [riderId]);
  return row ? Number(row.days) : undefined;
}

/** The fields of a rider's row a test sets directly, where no API or operator command does. */
export interface RiderFields {
  online?: boolean;
  rating?: number | null;
  vehicle?: string | null;
  phone?: string;
  /** Why the service set the rider offline (`silent`, `signed_out`), as the street watch records it. */
  offline_reason?: string | null;
}

export async function setRider(orm: Orm, riderId: string, fields: RiderFields): Promise<void> {
  // The column names come from RiderFields' keys, never from a caller's strings.
  const columns = (['online', 'rating', 'vehicle', 'phone', 'offline_reason'] as const).filter((column) => column in fields);
  if (columns.length === 0) return;
  await write(orm, `update riders set ${columns.map((c) => `${c} = ?`).join(', ')} where id = ?`, [...columns.map((c) => fields[c]), riderId]);
}

/** Makes the rider's token expired `age` ago. */
export function expireRiderToken(orm: Orm, riderId: string, age: Age): Promise<void> {
  const when = ago(age);
  return write(orm, `update riders set token_expires_at = ${when.sql} where id = ?`, [...when.params, riderId]);
}

/** The rider's sign-in links as stored: the code's hash, never the code. */
export function riderSignInsOf(orm: Orm, riderId: string): Promise<{ code_hash: string; expires_at: Date; used_at: Date | null }[]> {
  return rows(orm, 'select code_hash, expires_at, used_at from rider_sign_ins where rider_id = ? order by created_at', [riderId]);
}

/** Makes the rider's unused sign-in links expired `age` ago. */
export function expireRiderSignIns(orm: Orm, riderId: string, age: Age): Promise<void> {
  const when = ago(age);
  return write(orm, `update rider_sign_ins set expires_at = ${when.sql} where rider_id = ? and used_at is null`, [...when.params, riderId]);
}

/**
 * Updates of the riders table so far, and those Postgres made on the same page without new index
 * entries (HOT): the statistics are flushed first, so they include this session's own.
 */
export async function riderTableUpdates(orm: Orm): Promise<{ updated: number; hot: number }> {
  // Straight on the pool, as the pings write: with a pool of one, the flush is of their backend.
  await poolQuery(orm.em).query('select pg_stat_force_next_flush()');
  const { rows: [row] } = await poolQuery(orm.em).query<{ updated: string; hot: string }>(
    "select n_tup_upd as updated, n_tup_hot_upd as hot from pg_stat_user_tables where relname = 'riders'",
  );
  return { updated: Number(row!.updated), hot: Number(row!.hot) };
}

/** Makes the rider's last position `age` old, as if the app had stopped sending one then. */
export function silenceRider(orm: Orm, riderId: string, age: Age): Promise<void> {
  const when = ago(age);
  return write(orm, `update riders set located_at = ${when.sql} where id = ?`, [...when.params, riderId]);
}
