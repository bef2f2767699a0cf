import type { EntityManager } from '@mikro-orm/postgresql';
import type { MobileMoneyProvider } from '../integrations/mobile-money/gateway';
import { parseDebitReference } from '../domain/debit-reference';
import { poolQuery } from './pool-query';
import { isTerminal, type DeliveryStatus } from '../domain/lifecycle';
import type { PaymentTrailEntry } from '../domain/payment-trail';

/**
 * A delivery's debits as we record them (the money side is the gateway's): the booking's own
 * (`change_seq` 0), and one for each change of places that raised the fare (decision 0170), each
 * known to the gateway by its reference (domain/debit-reference.ts). Every booking requests one
 * and settles one, so these are named prepared statements on a client of the ORM's pool (parsed
 * and planned once per connection, no ORM layer per call), like the rider app's reads.
 */

/** What a debit is requested with: its amount, the account the delivery was booked with and the partner's email. */
export interface DebitContext {
  mode: 'live' | 'test';
  partner_id: string;
  /** Pesewas: the fare as booked for the booking's debit (a later change debits its own difference). */
  amount: number;
  account_id: string;
  provider: MobileMoneyProvider;
  phone: string;
  /** The partner's sign-up email: gateways such as Paystack send their receipt to it. */
  email: string;
}

/**
 * The account as it was registered: removing it later never touches this booking. The amount is
 * the fare as booked, which the first fare change keeps when a change of places re-priced the route.
 */
const CONTEXT_SQL = `
  select d.mode, d.partner_id, m.id as account_id, m.provider, m.phone, p.email,
    coalesce((select f.previous_total_fare from fare_changes f where f.delivery_id = d.id order by f.seq limit 1), d.total_fare) as amount
  from deliveries d join payment_methods m on m.id = d.payment_method_id join partners p on p.id = d.partner_id
  where d.id = $1`;

/** A fare change's debit: the difference it owes, from the delivery's account. */
const CHANGE_CONTEXT_SQL = `
  select d.mode, d.partner_id, m.id as account_id, m.provider, m.phone, p.email, f.debit_amount as amount
  from fare_changes f join deliveries d on d.id = f.delivery_id
    join payment_methods m on m.id = d.payment_method_id join partners p on p.id = d.partner_id
  where f.delivery_id = $1 and f.seq = $4 and f.debit_amount > 0`;


/**
 * The context, and the debit recorded as requested (once: a retried request finds it), in one
 * round trip. The gateway is the live one's for live deliveries ($2) and the sandbox's for test
 * ones ($3).
 */
const RECORD_REQUEST = {
  name: 'debit-record-request',
  text: `
    with context as (${CONTEXT_SQL}),
    recorded as (
      insert into debits (delivery_id, payment_method_id, gateway, amount, partner_id, mode)
      select $1, account_id, case mode when 'live' then $2 else $3 end, amount, partner_id, mode from context
      on conflict (delivery_id, change_seq) do nothing)
    select * from context`,
};

/** The same for a fare change's debit ($4 its number). */
const RECORD_CHANGE_REQUEST = {
  name: 'debit-record-change-request',
  text: `
    with context as (${CHANGE_CONTEXT_SQL}),
    recorded as (
      insert into debits (delivery_id, change_seq, payment_method_id, gateway, amount, partner_id, mode)
      select $1, $4, account_id, case mode when 'live' then $2 else $3 end, amount, partner_id, mode from context
      on conflict (delivery_id, change_seq) do nothing)
    select * from context`,
};

/**
 * The outcome on the delivery and on its debit, in one statement (so at once, without a
 * transaction's extra round trips). Only a pending record takes it: after that, only the
 * gateway's word changes a record (`reconcile`). `$4` is whether the gateway gave that word.
 */
const RECORD_OUTCOME = {
  name: 'debit-record-outcome',
  text: `
    with delivery as (
      update deliveries set payment_status = $2::text, updated_at = now() where id = $1 and payment_status = 'pending')
    update debits set state = $2::text, reason = $3, settled_at = now(), gateway_confirmed = $4::boolean
    where delivery_id = $1 and change_seq = 0 and state = 'pending'
    returning (select d.status from deliveries d where d.id = $1) as status`,
};

/**
 * A fare change's outcome ($5 its number): on its debit, shown in the delivery's `fare_changes`,
 * so the delivery's row is touched (its version moves) and its `payment_status` stays the booking's.
 */
const RECORD_CHANGE_OUTCOME = {
  name: 'debit-record-change-outcome',
  text: `
    with delivery as (update deliveries set updated_at = now() where id = $1)
    update debits set state = $2::text, reason = $3, settled_at = now(), gateway_confirmed = $4::boolean
    where delivery_id = $1 and change_seq = $5 and state = 'pending'
    returning (select d.status from deliveries d where d.id = $1) as status`,
};

/** The delivery and change a reference names; an error for one that is not ours (a bug, not input). */
function debitOf(reference: string): { deliveryId: string; changeSeq: number } {
  const parsed = parseDebitReference(reference);
  if (!parsed) throw new Error(`Not a debit reference: ${reference}`);
  return parsed;
}

/** The mode of the delivery a debit is for, which picks its gateway; undefined for no such delivery. */
export async function debitMode(em: EntityManager, reference: string): Promise<'live' | 'test' | undefined> {
  const [row] = await em.execute<{ mode: 'live' | 'test' }[]>('select mode from deliveries where id = ?', [debitOf(reference).deliveryId]);
  return row?.mode;
}

/** Records that the debit is being requested through the mode's gateway, and returns its context. */
export async function recordDebitRequest(
  em: EntityManager,
  reference: string,
  gateways: { live: string; test: string },
): Promise<DebitContext | undefined> {
  const { deliveryId, changeSeq } = debitOf(reference);
  const { rows } =
    changeSeq === 0
      ? await poolQuery(em).query<DebitContext>({ ...RECORD_REQUEST, values: [deliveryId, gateways.live, gateways.test] })
      : await poolQuery(em).query<DebitContext>({ ...RECORD_CHANGE_REQUEST, values: [deliveryId, gateways.live, gateways.test, changeSeq] });
  return rows[0];
}

export async function recordDebitOutcome(
  em: EntityManager,
  outcome: { reference: string; state: 'pending' | 'paid' | 'failed'; reason: string | null; confirmed: boolean },
): Promise<{ afterFinalWebhook: boolean } | null> {
  const { deliveryId, changeSeq } = debitOf(outcome.reference);
  const values = [deliveryId, outcome.state, outcome.reason, outcome.confirmed];
  const { rows } =
    changeSeq === 0
      ? await poolQuery(em).query<{ status: DeliveryStatus }>({ ...RECORD_OUTCOME, values })
      : await poolQuery(em).query<{ status: DeliveryStatus }>({ ...RECORD_CHANGE_OUTCOME, values: [...values, changeSeq] });
  const [recorded] = rows;
  // Settled once the delivery had ended: its last webhook carried `pending`, and none will follow.
  return recorded ? { afterFinalWebhook: isTerminal(recorded.status) } : null;
}

/**
 * A report of the debit's outcome came after the record was closed (a callback for a finished
 * delivery, say): the next reconciliation asks the gateway. False when there is no such debit.
 */
export async function requestRecheck(em: EntityManager, reference: string): Promise<boolean> {
  const rows = await em.execute<{ reference: string }[]>('update debits set recheck_requested_at = now() where reference = ? returning reference', [reference]);
  return rows.length > 0;
}

/**
 * The debits whose record may not match the gateway: still pending `pendingAfterSeconds` after
 * the request, closed without the gateway's word, or asked to be checked again by a later report.
 * One checked within `pendingAfterSeconds` waits for the next round. Postgres' clock alone decides.
 */
export async function toReconcile(em: EntityManager, { pendingAfterSeconds, limit }: { pendingAfterSeconds: number; limit: number }): Promise<string[]> {
  const rows = await em.execute<{ reference: string }[]>(
    `select reference from debits
     where (recheck_requested_at is not null
        or ((state = 'pending' and requested_at < now() - make_interval(secs => ?)) or (state <> 'pending' and not gateway_confirmed))
           and (checked_at is null or checked_at < now() - make_interval(secs => ?)))
     order by requested_at limit ?`,
    [pendingAfterSeconds, pendingAfterSeconds, limit],
  );
  return rows.map((row) => row.reference);
}

/** A debit as reconciliation reads it, with where to ask. */
export interface DebitToCheck {
  mode: 'live' | 'test';
  gateway: string;
  state: 'pending' | 'paid' | 'failed';
}

export async function findForCheck(em: EntityManager, reference: string): Promise<DebitToCheck | undefined> {
  const [row] = await em.execute<DebitToCheck[]>(
    'select d.mode, b.gateway, b.state from debits b join deliveries d on d.id = b.delivery_id where b.reference = ?',
    [reference],
  );
  return row;
}

/** A record changed to what the gateway says. */
export interface DebitCorrection {
  deliveryId: string;
  reference: string;
  from: string;
  to: 'paid' | 'failed';
  gateway: string;
  /**
   * The delivery had ended (its last webhook sent or on its way): no callback will carry the new
   * `payment_status`, so only a partner who reads the delivery again learns of it.
   */
  afterFinalWebhook: boolean;
}

/**
 * Sets the record to the gateway's word, under the debit's row lock: the debit follows it, and so
 * does the delivery's `payment_status` for the booking's debit (a change's shows in the record's
 * `fare_changes`); a change of state is kept in `debit_corrections`. A gateway that still says
 * `pending` changes nothing but the time of the check. Returns the correction, or null when the
 * record already said so.
 */
export async function reconcile(
  em: EntityManager,
  reference: string,
  word: { state: 'pending' | 'paid' | 'failed'; reason: string | null },
  trigger: string,
): Promise<DebitCorrection | null> {
  const { deliveryId, changeSeq } = debitOf(reference);
  return em.transactional(async (tx) => {
    const [debit] = await tx.execute<{ state: string; gateway: string }[]>(
      'select state, gateway from debits where delivery_id = ? and change_seq = ? for update',
      [deliveryId, changeSeq],
    );
    if (!debit) return null;
    if (word.state === 'pending') {
      await tx.execute('update debits set checked_at = now(), recheck_requested_at = null where delivery_id = ? and change_seq = ?', [deliveryId, changeSeq]);
      return null;
    }
    const changed = debit.state !== word.state;
    await tx.execute(
      `update debits set state = ?, reason = case when ? then ? else reason end, settled_at = coalesce(settled_at, now()),
         gateway_confirmed = true, checked_at = now(), recheck_requested_at = null
       where delivery_id = ? and change_seq = ?`,
      [word.state, changed, word.reason, deliveryId, changeSeq],
    );
    if (!changed) return null;
    const [delivery] = await tx.execute<{ status: string }[]>(
      `update deliveries set payment_status = case when ? = 0 then ? else payment_status end, updated_at = now() where id = ? returning status`,
      [changeSeq, word.state, deliveryId],
    );
    await tx.execute(
      'insert into debit_corrections (delivery_id, change_seq, from_state, to_state, gateway, reason, trigger) values (?, ?, ?, ?, ?, ?, ?)',
      [deliveryId, changeSeq, debit.state, word.state, debit.gateway, word.reason, trigger],
    );
    const afterFinalWebhook = delivery !== undefined && isTerminal(delivery.status as DeliveryStatus);
    return { deliveryId, reference, from: debit.state, to: word.state, gateway: debit.gateway, afterFinalWebhook };
  });
}

/**
 * A delivery's payment (its booking's debit) as it changed: requested (pending), its first outcome, and each time the
 * record was corrected to the gateway's word (`debit_corrections`), oldest first. A correction
 * made after the delivery's terminal status reached no partner by webhook.
 */
export async function paymentTrail(em: EntityManager, deliveryId: string): Promise<PaymentTrailEntry[]> {
  const rows = await em.execute<{ at: Date; from_state: string; to_state: string; reason: string | null; by: string; after_final: boolean }[]>(
    `with ended as (
       select max(e.created_at) as at from delivery_events e
        where e.delivery_id = ? and e.status in ('delivered', 'cancelled', 'expired')
     ), first_outcome as (
       -- The debit's own outcome is what the earliest correction corrected, else what it says now.
       select b.settled_at as at, 'pending' as from_state, coalesce(first.from_state, b.state) as to_state,
              case when first.from_state is null then b.reason end as reason, 'workflow' as by, 0::bigint as seq
         from debits b
         left join lateral (
           select c.from_state from debit_corrections c where c.delivery_id = b.delivery_id and c.change_seq = 0 order by c.id limit 1
         ) first on true
        where b.delivery_id = ? and b.change_seq = 0 and b.settled_at is not null
     )
     select t.at, t.from_state, t.to_state, t.reason, t.by,
            coalesce(t.at > (select at from ended), false) as after_final
       from (select * from first_outcome where to_state <> 'pending'
             union all
             select c.created_at, c.from_state, c.to_state, c.reason, c.trigger, c.id from debit_corrections c where c.delivery_id = ? and c.change_seq = 0) t
      order by t.seq, t.at`,
    [deliveryId, deliveryId, deliveryId],
  );
  return rows.map((row) => ({
    at: new Date(row.at),
    from: row.from_state,
    to: row.to_state,
    reason: row.reason,
    by: row.by,
    afterFinalWebhook: row.after_final,
  }));
}
