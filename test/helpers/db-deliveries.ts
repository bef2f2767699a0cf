import { versionWithLive } from '../../db/deliveries';
import type { Orm } from '../../db/orm';
import { ago, list, rows, write, type Age } from './db';

/** What tests read of a delivery's row. */
export interface DeliveryRow {
  id: string;
  partner_id: string;
  mode: string;
  status: string;
  payment_status: string;
  rider_id: string | null;
  created_at: Date;
  /** Whether its workflow has claimed it (workflow_claimed_at is set). */
  claimed: boolean;
  /** Since when its silent rider has left it needing an operator (the street watch's flag). */
  attention_since: Date | null;
}

const DELIVERY_COLUMNS = 'id, partner_id, mode, status, payment_status, rider_id, created_at, workflow_claimed_at is not null as claimed, attention_since';

export async function deliveryRow(orm: Orm, deliveryId: string): Promise<DeliveryRow | undefined> {
  const [row] = await rows<DeliveryRow>(orm, `select ${DELIVERY_COLUMNS} from deliveries where id = ?`, [deliveryId]);
  return row;
}

/** Every delivery a partner booked, in both modes. */
export function deliveriesOf(orm: Orm, partnerId: string): Promise<DeliveryRow[]> {
  return rows<DeliveryRow>(orm, `select ${DELIVERY_COLUMNS} from deliveries where partner_id = ? order by created_at, id`, [partnerId]);
}

export async function deliveryIdsOf(orm: Orm, partnerId: string): Promise<string[]> {
  return (await deliveriesOf(orm, partnerId)).map((d) => d.id);
}

/** The rows of the given deliveries (those that exist). */
export async function deliveriesByIds(orm: Orm, ids: string | readonly string[]): Promise<DeliveryRow[]> {
  if (list(ids).length === 0) return [];
  return rows<DeliveryRow>(orm, `select ${DELIVERY_COLUMNS} from deliveries where id in (?) order by id`, [list(ids)]);
}

/** How many of the given deliveries stand at each status and payment status, as `n × status/payment`. */
export async function statusTally(orm: Orm, ids: readonly string[]): Promise<string[]> {
  const tally = new Map<string, number>();
  for (const { status, payment_status } of await deliveriesByIds(orm, ids)) {
    const state = `${status}/${payment_status}`;
    tally.set(state, (tally.get(state) ?? 0) + 1);
  }
  return [...tally].map(([state, n]) => `${n} × ${state}`);
}

/** Seconds since the delivery's row was written. */
export async function deliveryAgeSeconds(orm: Orm, deliveryId: string): Promise<number | undefined> {
  const [row] = await rows<{ age: string }>(orm, 'select extract(epoch from now() - created_at) as age from deliveries where id = ?', [deliveryId]);
  return row ? Number(row.age) : undefined;
}

/** Makes the delivery's kept ETA as old as `age`, so the next read computes it anew. */
export function ageEta(orm: Orm, deliveryId: string, age: Age): Promise<void> {
  const when = ago(age);
  return write(orm, `update delivery_etas set computed_at = ${when.sql} where delivery_id = ?`, [...when.params, deliveryId]);
}

/** The version kept answers about the delivery are checked against (db/deliveries.ts DELIVERY_VERSION_SQL). */
export async function deliveryVersion(orm: Orm, deliveryId: string): Promise<string | undefined> {
  return (await versionWithLive(orm.em.fork(), deliveryId))?.version;
}

/** The riders a job was offered to, each offer with whether it is still open. */
export function offersMadeFor(orm: Orm, deliveryId: string): Promise<{ rider_id: string; open: boolean }[]> {
  return rows(orm, 'select rider_id, expires_at > now() as open from rider_offers where delivery_id = ? order by created_at, rider_id', [deliveryId]);
}

export interface HandoverPhotoRow {
  position: number;
  storage_key: string;
  content_type: string;
  size_bytes: number;
}

/** The hand-over photos of a delivery, highest position first. */
export function handoverPhotosOf(orm: Orm, deliveryId: string): Promise<HandoverPhotoRow[]> {
  return rows(orm, 'select position, storage_key, content_type, size_bytes from handover_photos where delivery_id = ? order by position desc', [deliveryId]);
}

/** The keys of a delivery's hand-over photos still waiting for their hand-over's answer. */
export async function photoUploadsOf(orm: Orm, deliveryId: string): Promise<string[]> {
  const found = await rows<{ storage_key: string }>(orm, 'select storage_key from handover_photo_uploads where delivery_id = ? order by created_at', [deliveryId]);
  return found.map((row) => row.storage_key);
}

/** Puts an upload's clock back by `age`. */
export function agePhotoUpload(orm: Orm, storageKey: string, age: Age): Promise<void> {
  const when = ago(age);
  return write(orm, `update handover_photo_uploads set created_at = ${when.sql} where storage_key = ?`, [...when.params, storageKey]);
}

/** The masked-call sessions of a delivery, each with whether it was closed. */
export function callSessionsOf(orm: Orm, deliveryId: string): Promise<{ closed: boolean }[]> {
  return rows(orm, 'select closed_at is not null as closed from proxy_call_sessions where delivery_id = ? order by created_at', [deliveryId]);
}

/** The recipients' numbers the masked-call sessions of a delivery bridge to (local bridge, number pool). */
export async function maskedCallRecipientsOf(orm: Orm, deliveryId: string): Promise<string[]> {
  const found = await rows<{ recipient_phone: string }>(orm, 'select recipient_phone from call_sessions where delivery_id = ? order by stop_index', [deliveryId]);
  return found.map((row) => row.recipient_phone);
}

/**
 * Puts a delivery's whole story `days` back (its booking and every status change so far): a
 * finished one as if it had ended that long ago, since the retention round measures from the end.
 */
export async function backdateDelivery(orm: Orm, deliveryId: string, days: number): Promise<void> {
  await write(orm, 'update delivery_events set created_at = created_at - make_interval(days => ?) where delivery_id = ?', [days, deliveryId]);
  await write(orm, 'update deliveries set created_at = created_at - make_interval(days => ?) where id = ?', [days, deliveryId]);
}

/** The tables that keep rows for a delivery beside its own: a booking that never started leaves none. */
const TRACES = ['debits', 'delivery_otps', 'sms_outbox', 'rider_offers', 'delivery_events', 'webhook_events'] as const;

/** How many rows each of those tables holds for a delivery. */
export async function tracesOf(orm: Orm, deliveryId: string): Promise<Record<(typeof TRACES)[number], number>> {
  const counts = await Promise.all(
    TRACES.map(async (table) => {
      const [row] = await rows<{ n: string }>(orm, `select count(*) as n from ${table} where delivery_id = ?`, [deliveryId]);
      return [table, Number(row?.n)] as const;
    }),
  );
  return Object.fromEntries(counts) as Record<(typeof TRACES)[number], number>;
}
