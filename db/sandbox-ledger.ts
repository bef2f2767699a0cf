import type { EntityManager } from '@mikro-orm/postgresql';
import type { SandboxLedger, SandboxLedgerEntry } from '../integrations/mobile-money/sandbox';
import { poolQuery } from './pool-query';

/**
 * The sandbox Mobile Money network's ledger (integrations/mobile-money/sandbox.ts), kept in
 * `sandbox_momo_transactions`. Every sandbox booking records a debit and settles it, so the
 * statements are named and prepared on a client of the ORM's pool. Recording a debit returns its
 * row, new or (for a retried request) as first recorded, in one round trip.
 */

const RECORD_DEBIT = {
  name: 'sandbox-record-debit',
  text: `
    with recorded as (
      insert into sandbox_momo_transactions (reference, phone, provider, amount, state, reason, settle_at)
      values ($1, $2, $3, $4, $5, $6, now() + $7::integer * interval '1 millisecond')
      on conflict (reference) do nothing
      returning reference, state, reason, settle_at)
    select * from recorded
    union all
    select reference, state, reason, settle_at from sandbox_momo_transactions
    where reference = $1 and not exists (select 1 from recorded)`,
};
const ROW = { name: 'sandbox-debit', text: 'select reference, state, reason, settle_at from sandbox_momo_transactions where reference = $1' };
const SETTLE = {
  name: 'sandbox-settle-debit',
  text: `update sandbox_momo_transactions set state = 'paid'
         where reference = $1 and state = 'pending' and settle_at <= now() returning reference, state, reason, settle_at`,
};

/** The ledger on the ORM's pool; `em` is asked for an entity manager at each call. */
export function sandboxLedger(em: () => EntityManager): SandboxLedger {
  return {
    async record(debit) {
      const { rows } = await poolQuery(em()).query<SandboxLedgerEntry>({
        ...RECORD_DEBIT,
        values: [debit.reference, debit.phone, debit.provider, debit.amountPesewas, debit.state, debit.reason, debit.settleAfterMs],
      });
      return rows[0];
    },
    async find(reference) {
      return (await poolQuery(em()).query<SandboxLedgerEntry>({ ...ROW, values: [reference] })).rows[0];
    },
    async settleIfDue(reference) {
      return (await poolQuery(em()).query<SandboxLedgerEntry>({ ...SETTLE, values: [reference] })).rows[0];
    },
  };
}
