import type { EntityManager } from '@mikro-orm/postgresql';
import type { LatLng } from '../domain/geo';
import type { Fare } from '../domain/pricing';
import { poolQuery } from './pool-query';

/**
 * Quotes that hold their fare for a while: a booking naming one pays it. Expiry is judged by
 * Postgres' clock, so every API process agrees on whether a quote still holds.
 */

export interface NewQuote {
  id: string;
  partnerId: string;
  mode: string;
  /** Pickup, each additional stop, the final drop-off: the route the fare is for. */
  route: LatLng[];
  fare: Fare;
  distanceEstimated: boolean;
}

export interface StoredQuote {
  route: LatLng[];
  fare: Fare;
  /** Its time has run out, by the database clock. */
  expired: boolean;
}

// Quotes are asked for as often as a partner's checkout page is opened: a prepared statement.
const INSERT_QUERY = {
  name: 'quote-insert',
  text: `insert into quotes (id, partner_id, mode, route, base_fare, distance_m, distance_fee, service_fee, total_fare,
           distance_estimated, expires_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + make_interval(secs => $11))
         returning expires_at`,
};

/** Stores a quote holding for `ttlSeconds`; returns when it expires. */
export async function insert(em: EntityManager, quote: NewQuote, ttlSeconds: number): Promise<Date> {
  const { fare } = quote;
  const { rows } = await poolQuery(em).query<{ expires_at: Date }>({
    ...INSERT_QUERY,
    values: [
      quote.id,
      quote.partnerId,
      quote.mode,
      JSON.stringify(quote.route.map((p) => [p.lat, p.lng])),
      fare.baseFare,
      fare.distanceMeters,
      fare.distanceFee,
      fare.serviceFee,
      fare.totalFare,
      quote.distanceEstimated,
      ttlSeconds,
    ],
  });
  return rows[0]!.expires_at;
}

/** The partner's quote in this mode; null when there is none by that id (or it is another's). */
export async function findForPartner(em: EntityManager, id: string, owner: { partnerId: string; mode: string }): Promise<StoredQuote | null> {
  type Row = {
    route: [number, number][];
    base_fare: number;
    distance_m: number;
    distance_fee: number;
    service_fee: number;
    total_fare: number;
    expired: boolean;
  };
  const [row] = await em.execute<Row[]>(
    `select route, base_fare, distance_m, distance_fee, service_fee, total_fare, expires_at <= now() as expired
     from quotes where id = ? and partner_id = ? and mode = ?`,
    [id, owner.partnerId, owner.mode],
  );
  if (!row) return null;
  return {
    route: row.route.map(([lat, lng]) => ({ lat, lng })),
    fare: {
      baseFare: row.base_fare,
      distanceMeters: row.distance_m,
      distanceFee: row.distance_fee,
      serviceFee: row.service_fee,
      totalFare: row.total_fare,
    },
    expired: row.expired,
  };
}

/** Deletes quotes that expired over an hour ago: until then a booking naming one is told it expired. */
export async function sweepExpired(em: EntityManager): Promise<void> {
  await em.execute(`delete from quotes where expires_at < now() - interval '1 hour'`);
}
