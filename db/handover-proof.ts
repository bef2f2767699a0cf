import type { EntityManager } from '@mikro-orm/postgresql';
import { FINAL_DROP } from '../domain/lifecycle';

/** What a partner is shown of each hand-over: when and where it happened, and its photo. */
export interface HandoverRecord {
  /** A stop's index, or FINAL_DROP. */
  position: number;
  handedOverAt: string;
  lat: number | null;
  lng: number | null;
  photo: { storageKey: string; contentType: string } | null;
}

interface Row {
  position: number;
  handed_over_at: Date;
  lat: number | null;
  lng: number | null;
  storage_key: string | null;
  content_type: string | null;
}

/**
 * The hand-overs done so far, in the order the rider makes them: each stop handed over, then
 * the final drop once the delivery is delivered. The final drop's place is its trail entry's.
 */
export async function handoversOf(em: EntityManager, deliveryId: string): Promise<HandoverRecord[]> {
  const rows = await em.execute<Row[]>(
    `select * from (
     select s.position, s.delivered_at as handed_over_at, s.handover_lat as lat, s.handover_lng as lng, p.storage_key, p.content_type
       from delivery_stops s
       left join handover_photos p on p.delivery_id = s.delivery_id and p.position = s.position
      where s.delivery_id = ? and s.status = 'delivered' and s.delivered_at is not null
     union all
     select ?::int, d.delivered_at, e.lat, e.lng, p.storage_key, p.content_type
       from deliveries d
       left join delivery_events e on e.delivery_id = d.id and e.status = 'delivered'
       left join handover_photos p on p.delivery_id = d.id and p.position = ?::int
      where d.id = ? and d.status = 'delivered' and d.delivered_at is not null) handovers
     order by position = ?::int, position`,
    [deliveryId, FINAL_DROP, FINAL_DROP, deliveryId, FINAL_DROP],
  );
  return rows.map((row) => ({
    position: row.position,
    handedOverAt: new Date(row.handed_over_at).toISOString(),
    lat: row.lat,
    lng: row.lng,
    photo: row.storage_key && row.content_type ? { storageKey: row.storage_key, contentType: row.content_type } : null,
  }));
}
