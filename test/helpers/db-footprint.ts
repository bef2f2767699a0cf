import type { Orm } from '../../db/orm';

/**
 * Everything of a partner and a rider that a request could change, except last-used times, as one
 * string to compare before and after: deliveries and their trails, accounts, callback settings and
 * events, idempotency claims, keys, and the rider's row and offers.
 */
export async function footprintOf(orm: Orm, owners: { partnerId: string; riderId: string }): Promise<string> {
  const em = orm.em.fork();
  const p = [owners.partnerId];
  const tables = await Promise.all([
    em.execute('select id, status, payment_status, rider_id, total_fare, recipient_phone from deliveries where partner_id = ? order by id', p),
    em.execute('select delivery_id, status from delivery_events where delivery_id in (select id from deliveries where partner_id = ?) order by 1, 2', p),
    em.execute('select id, phone, is_default, deleted_at from payment_methods where partner_id = ? order by id', p),
    em.execute('select mode, url, secret from webhook_endpoints where partner_id = ? order by mode', p),
    em.execute('select id, state, attempts from webhook_events where partner_id = ? order by id', p),
    em.execute('select key, request_hash from idempotency_keys where partner_id = ? order by key', p),
    em.execute('select id, revoked_at from api_keys where partner_id = ? order by id', p),
    em.execute('select id, online, lat, lng, active_delivery_id from riders where id = ?', [owners.riderId]),
    em.execute('select count(*) as n from rider_offers where rider_id = ?', [owners.riderId]),
  ]);
  return JSON.stringify(tables);
}
