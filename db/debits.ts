import type { EntityManager } from '@mikro-orm/postgresql';
import type { MobileMoneyProvider } from '../integrations/mobile-money/gateway';
import { poolQuery } from './pool-query';

/**
 * A booking's debit as we record it (the money side is the gateway's). Every booking requests one
 * and settles one, so these are named prepared statements on a client of the ORM's pool (parsed
 * and planned once per connection, no ORM layer per call), like the rider app's reads.
 */

/** What a debit is requested with: the fare, the account it was booked with and the partner's email. */
export interface DebitContext {
  mode: 'live' | 'test';
  partner_id: string;
  total_fare: number;
  account_id: string;
  provider: MobileMoneyProvider;
  phone: string;
  /** The partner's sign-up email: gateways such as Paystack send their receipt to it. */
  email: string;
}

/** The account as it was registered: removing it later never touches this booking. */
const CONTEXT_SQL = `
  select d.mode, d.partner_id, d.total_fare, m.id as account_id, m.provider, m.phone, p.email
  from deliveries d join payment_methods m on m.id = d.payment_method_id join partners p on p.id = d.partner_id
  where d.id = $1`;

const CONTEXT = { name: 'debit-context', text: CONTEXT_SQL };

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
      insert into debits (delivery_id, payment_method_id, gateway, amount)
      select $1, account_id, case mode when 'live' then $2 else $3 end, total_fare from context
      on conflict (delivery_id) do nothing)
    select * from context`,
};

/**
 * The outcome on the delivery and on its debit, in one statement (so at once, without a
 * transaction's extra round trips); `paid` and `failed` are never changed afterwards.
 */
const RECORD_OUTCOME = {
  name: 'debit-record-outcome',
  text: `
    with delivery as (
      update deliveries set payment_status = $2::text, updated_at = now() where id = $1 and payment_status = 'pending')
    update debits set state = $2::text, reason = $3, settled_at = now() where delivery_id = $1 and state = 'pending'`,
};

export async function debitContext(em: EntityManager, deliveryId: string): Promise<DebitContext | undefined> {
  return (await poolQuery(em).query<DebitContext>({ ...CONTEXT, values: [deliveryId] })).rows[0];
}

/** Records that the debit is being requested through the mode's gateway, and returns its context. */
export async function recordDebitRequest(
  em: EntityManager,
  deliveryId: string,
  gateways: { live: string; test: string },
): Promise<DebitContext | undefined> {
  const { rows } = await poolQuery(em).query<DebitContext>({ ...RECORD_REQUEST, values: [deliveryId, gateways.live, gateways.test] });
  return rows[0];
}

export async function recordDebitOutcome(
  em: EntityManager,
  outcome: { deliveryId: string; state: 'pending' | 'paid' | 'failed'; reason: string | null },
): Promise<void> {
  await poolQuery(em).query({ ...RECORD_OUTCOME, values: [outcome.deliveryId, outcome.state, outcome.reason] });
}
