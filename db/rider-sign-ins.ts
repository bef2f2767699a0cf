import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * One-time sign-in codes of the rider app. Only a code's hash is kept. Redeeming one marks it used
 * and gives the rider a fresh token in one statement, so two phones racing on one link cannot both
 * sign in.
 */

/** Why a code signs nobody in. */
export type SignInRefusal = 'unknown' | 'used' | 'expired';

/** Keeps a new code's hash for the rider; false when there is no such rider (robo riders have no app). */
export async function issue(em: EntityManager, riderId: string, codeHash: string, hours: number): Promise<{ expiresAt: Date } | null> {
  const [row] = await em.execute<{ expires_at: Date }[]>(
    `insert into rider_sign_ins (code_hash, rider_id, expires_at)
     select ?, r.id, now() + make_interval(hours => ?) from riders r where r.id = ? and not r.is_robo
     returning expires_at`,
    [codeHash, hours, riderId],
  );
  return row ? { expiresAt: new Date(row.expires_at) } : null;
}

/**
 * Spends the code and gives its rider the token hashed as `tokenHash`, valid for `tokenDays`: the
 * rider's previous token stops working, as with `rider:token`. A code already used, expired or
 * unknown is refused with the reason.
 */
export async function redeem(
  em: EntityManager,
  codeHash: string,
  tokenHash: string,
  tokenDays: number,
): Promise<{ riderId: string } | { refused: SignInRefusal }> {
  const [row] = await em.execute<{ rider_id: string | null; refused: 'used' | 'expired' | null; known: boolean }[]>(
    `with spent as (
       update rider_sign_ins set used_at = now()
       where code_hash = ? and used_at is null and expires_at > now()
       returning rider_id
     ), signed_in as (
       update riders r set token_hash = ?, token_expires_at = now() + make_interval(days => ?), token_changed_at = now()
       from spent where r.id = spent.rider_id returning r.id
     )
     select (select id from signed_in) as rider_id,
       exists (select 1 from rider_sign_ins where code_hash = ?) as known,
       (select case when used_at is not null then 'used' when expires_at <= now() then 'expired' end
        from rider_sign_ins where code_hash = ?) as refused`,
    [codeHash, tokenHash, tokenDays, codeHash, codeHash],
  );
  if (row?.rider_id) return { riderId: row.rider_id };
  if (!row?.known) return { refused: 'unknown' };
  return { refused: row.refused ?? 'used' };
}
