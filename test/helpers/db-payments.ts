import type { Orm } from '../../db/orm';
import { ago, list, rows, write, type Age } from './db';

export interface PaymentMethodRow {
  id: string;
  mode: string;
  provider: string;
  phone: string;
  account_name: string;
  is_default: boolean;
  deleted_at: Date | null;
}

/** A partner's Mobile Money accounts, removed ones included, oldest first. */
export function paymentMethodsOf(orm: Orm, partnerId: string): Promise<PaymentMethodRow[]> {
  return rows(orm, 'select id, mode, provider, phone, account_name, is_default, deleted_at from payment_methods where partner_id = ? order by created_at, id', [partnerId]);
}

/** What we recorded of a delivery's debit: the money side. */
export interface DebitRow {
  delivery_id: string;
  payment_method_id: string;
  gateway: string;
  amount: number;
  state: string;
  reason: string | null;
  settled_at: Date | null;
}

/** The debits of one delivery or of several: the booking's, then each fare change's. */
export function debitsOf(orm: Orm, deliveryIds: string | readonly string[]): Promise<DebitRow[]> {
  if (list(deliveryIds).length === 0) return Promise.resolve([]);
  return rows(orm, 'select delivery_id, payment_method_id, gateway, amount, state, reason, settled_at from debits where delivery_id in (?) order by delivery_id, change_seq', [list(deliveryIds)]);
}

/** The reconciliation's side of a delivery's debit: whether the gateway confirmed it, and a recheck asked for. */
export async function debitCheckOf(
  orm: Orm,
  deliveryId: string,
): Promise<{ state: string; gateway_confirmed: boolean; recheck_requested_at: Date | null } | undefined> {
  const [row] = await rows<{ state: string; gateway_confirmed: boolean; recheck_requested_at: Date | null }>(
    orm,
    'select state, gateway_confirmed, recheck_requested_at from debits where delivery_id = ?',
    [deliveryId],
  );
  return row;
}

/** Moves the recorded outcome of these deliveries' debits back by `age`, as if they had settled then. */
export function settleDebitsEarlier(orm: Orm, deliveryIds: string | readonly string[], age: Age): Promise<void> {
  const when = ago(age);
  return write(orm, `update debits set settled_at = ${when.sql} where delivery_id in (?)`, [...when.params, list(deliveryIds)]);
}

/** The corrections the reconciliation made to a delivery's debit, in order. */
export function debitCorrectionsOf(orm: Orm, deliveryId: string): Promise<{ from_state: string; to_state: string; gateway: string; trigger: string }[]> {
  return rows(orm, 'select from_state, to_state, gateway, trigger from debit_corrections where delivery_id = ? order by id', [deliveryId]);
}

/** A line of the sandbox network's own ledger: what it took, from whom. */
export interface LedgerRow {
  reference: string;
  phone: string;
  provider: string;
  amount: number;
  state: string;
  reason: string | null;
}

/** The sandbox network's ledger lines for the given references (a delivery's id is its debit's reference). */
export function ledgerOf(orm: Orm, references: string | readonly string[]): Promise<LedgerRow[]> {
  if (list(references).length === 0) return Promise.resolve([]);
  return rows(orm, 'select reference, phone, provider, amount, state, reason from sandbox_momo_transactions where reference in (?) order by reference', [list(references)]);
}

/** The sandbox network turns a debit it took to failed, as a reversal would. */
export function reverseOnLedger(orm: Orm, reference: string, reason: string): Promise<void> {
  return write(orm, `update sandbox_momo_transactions set state = 'failed', reason = ? where reference = ?`, [reason, reference]);
}
