import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyMode } from '../domain/api-key';
import type { VerificationMethod } from '../domain/lifecycle';
import type { SandboxRider } from '../domain/sandbox-rider';
import { poolQuery, type PoolQuery } from './pool-query';

/**
 * A booking's rows (the delivery, its `pending` event and its additional stops), and the claim its
 * delivery workflow lays on them: committed first, claimed by the workflow's first step, withdrawn
 * by the API only while unclaimed, and found by the booking sweeper when left unclaimed.
 */

export interface NewStop {
  dropoffAddress: string;
  dropoffLat: number;
  dropoffLng: number;
  recipientName: string;
  recipientPhone: string;
  packageSize: string;
  packageDescription: string | null;
}

export interface NewBooking {
  id: string;
  partnerId: string;
  mode: KeyMode;
  reference: string;
  paymentMethodId: string;
  pickupAddress: string;
  pickupLat: number;
  pickupLng: number;
  dropoffAddress: string;
  dropoffLat: number;
  dropoffLng: number;
  packageSize: string;
  packageDescription: string | null;
  recipientName: string;
  recipientPhone: string;
  verificationMethod: string;
  scheduledAt: Date | null;
  /** Who rides a test-mode delivery; null in live mode. */
  sandboxRider: SandboxRider | null;
  baseFare: number;
  distanceMeters: number;
  distanceFee: number;
  serviceFee: number;
  totalFare: number;
  /** In visiting order. */
  stops: NewStop[];
}

/**
 * The row and its `pending` event in one statement, a round trip fewer in the transaction; named,
 * so each connection plans it once. Booking is the API's hottest write. `created_at` is Postgres'
 * clock, the one the sweeper measures a booking's age by.
 */
const INSERT_DELIVERY = {
  name: 'booking-insert-delivery',
  text: `with delivery as (
      insert into deliveries (id, partner_id, mode, reference, payment_method_id, pickup_address, pickup_lat, pickup_lng,
        dropoff_address, dropoff_lat, dropoff_lng, package_size, package_description, recipient_name, recipient_phone,
        verification_method, scheduled_at, base_fare, distance_m, distance_fee, service_fee, total_fare, sandbox_rider, created_at, updated_at)
      values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, now(), now())
      returning id, created_at)
    insert into delivery_events (delivery_id, status, created_at) select id, 'pending', created_at from delivery`,
};

const INSERT_STOP = {
  name: 'booking-insert-stop',
  text: `insert into delivery_stops (delivery_id, position, dropoff_address, dropoff_lat, dropoff_lng, recipient_name,
      recipient_phone, package_size, package_description) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
};

/** Writes the booking's rows in the caller's transaction (`tx`). */
export async function insert(tx: PoolQuery, b: NewBooking): Promise<void> {
  await tx.query({
    ...INSERT_DELIVERY,
    values: [
      b.id, b.partnerId, b.mode, b.reference, b.paymentMethodId, b.pickupAddress, b.pickupLat, b.pickupLng,
      b.dropoffAddress, b.dropoffLat, b.dropoffLng, b.packageSize, b.packageDescription,
      b.recipientName, b.recipientPhone, b.verificationMethod, b.scheduledAt, b.baseFare,
      b.distanceMeters, b.distanceFee, b.serviceFee, b.totalFare, b.sandboxRider,
    ],
  });
  for (const [position, stop] of b.stops.entries()) {
    await tx.query({
      ...INSERT_STOP,
      values: [b.id, position, stop.dropoffAddress, stop.dropoffLat, stop.dropoffLng, stop.recipientName,
        stop.recipientPhone, stop.packageSize, stop.packageDescription],
    });
  }
}

/**
 * The delivery workflow's first step: marks the booking as its workflow's, so the API can no longer
 * withdraw it and the sweeper leaves it alone. True when the row is there (claimed now or before);
 * false when there is none, which means the API withdrew it. Run for every booking, so prepared.
 */
const CLAIM = {
  name: 'booking-claim',
  text: 'update deliveries set workflow_claimed_at = coalesce(workflow_claimed_at, now()) where id = $1 returning id',
};

export async function claimForWorkflow(em: EntityManager, id: string): Promise<boolean> {
  return (await poolQuery(em).query({ ...CLAIM, values: [id] })).rows.length === 1;
}

/**
 * True when the booking's workflow has claimed it: it can no longer be withdrawn, so it may be
 * named to the partner. False while it can still be, and when there is no such booking.
 */
export async function isClaimed(em: EntityManager, id: string): Promise<boolean> {
  const rows = await em.execute<unknown[]>('select 1 from deliveries where id = ? and workflow_claimed_at is not null', [id]);
  return rows.length === 1;
}

/**
 * Deletes a booking whose workflow may not have started, with its stops and event (they cascade),
 * unless a workflow has claimed it: the row lock orders this against `claimForWorkflow`, so one of
 * the two finds the other done. True when it was withdrawn.
 */
export async function withdrawUnclaimed(tx: PoolQuery, id: string): Promise<boolean> {
  const { rows } = await tx.query('delete from deliveries where id = $1 and workflow_claimed_at is null returning id', [id]);
  return rows.length === 1;
}

/** A booking no workflow has claimed, as the sweeper needs it to start one. */
export interface UnclaimedBooking {
  id: string;
  partnerId: string;
  mode: KeyMode;
  reference: string;
  pickupLat: number;
  pickupLng: number;
  dropoffLat: number;
  dropoffLng: number;
  /** The additional stops' drop-offs, in visiting order. */
  stops: { lat: number; lng: number }[];
  verificationMethod: VerificationMethod;
  scheduledAt: Date | null;
  sandboxRider: SandboxRider | null;
  /** How long ago it was booked, by Postgres' clock. */
  ageSeconds: number;
}

/**
 * Pending bookings that no workflow has claimed `olderThanSeconds` after they were committed, oldest
 * first. Age is by Postgres' clock alone (`created_at` is its `now()` at the insert). Unclaimed rows
 * are all pending, so the pending index keeps this read small however many deliveries there are.
 */
export async function findUnclaimed(em: EntityManager, { olderThanSeconds, limit }: { olderThanSeconds: number; limit: number }): Promise<UnclaimedBooking[]> {
  type Row = {
    id: string; partner_id: string; mode: KeyMode; reference: string; pickup_lat: number; pickup_lng: number;
    dropoff_lat: number; dropoff_lng: number; stops: { lat: number; lng: number }[];
    verification_method: VerificationMethod; scheduled_at: Date | string | null; sandbox_rider: SandboxRider | null;
    age_seconds: number | string;
  };
  const rows = await em.execute<Row[]>(
    `select d.id, d.partner_id, d.mode, d.reference, d.pickup_lat, d.pickup_lng, d.dropoff_lat, d.dropoff_lng,
        d.verification_method, d.scheduled_at, d.sandbox_rider, extract(epoch from now() - d.created_at)::float8 as age_seconds,
        coalesce((select json_agg(json_build_object('lat', s.dropoff_lat, 'lng', s.dropoff_lng) order by s.position)
          from delivery_stops s where s.delivery_id = d.id), '[]'::json) as stops
      from deliveries d
      where d.status = 'pending' and d.workflow_claimed_at is null and d.created_at < now() - make_interval(secs => ?)
      order by d.created_at, d.id
      limit ?`,
    [olderThanSeconds, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    partnerId: r.partner_id,
    mode: r.mode,
    reference: r.reference,
    pickupLat: r.pickup_lat,
    pickupLng: r.pickup_lng,
    dropoffLat: r.dropoff_lat,
    dropoffLng: r.dropoff_lng,
    stops: r.stops,
    verificationMethod: r.verification_method,
    scheduledAt: r.scheduled_at === null ? null : new Date(r.scheduled_at),
    sandboxRider: r.sandbox_rider,
    ageSeconds: Number(r.age_seconds),
  }));
}
