import type { PaymentStatus } from './lifecycle';
import { pesewasToCedis, type Pesewas } from './money';

/** A booking priced again after a change of places, as recorded (pesewas). */
export interface FareChange {
  seq: number;
  previousTotalFare: Pesewas;
  totalFare: Pesewas;
  /** What the new fare exceeds every fare before it by, else 0: the contract has no refunds. */
  debitAmount: Pesewas;
  /** The difference's own debit; null when nothing was owed. */
  debitState: PaymentStatus | null;
  createdAt: Date | string;
}

/** The fare the booking's own debit takes: as booked, before any change priced the route again. */
export function bookedFare(totalFare: Pesewas, fareChanges: readonly FareChange[]): Pesewas {
  return fareChanges[0]?.previousTotalFare ?? totalFare;
}

/**
 * The highest fare the partner has been asked for: every fare the delivery ever had, as booked
 * and after each change. Each rise debited the way up to its fare, so what a new fare exceeds this
 * by is all that is still owed. A difference whose debit failed still counts: the reconciliation
 * may find it taken after all, and until then the unpaid-work rule holds the partner to it.
 */
export function fareAsked(totalFare: Pesewas, fareChanges: readonly FareChange[]): Pesewas {
  return Math.max(totalFare, ...fareChanges.flatMap((change) => [change.previousTotalFare, change.totalFare]));
}

/** What the gateway has confirmed taken for the delivery: the booking's debit and each change's. */
export function amountPaid(d: { totalFare: Pesewas; paymentStatus: PaymentStatus }, fareChanges: readonly FareChange[]): Pesewas {
  const booking = d.paymentStatus === 'paid' ? bookedFare(d.totalFare, fareChanges) : 0;
  return fareChanges.reduce((sum, change) => sum + (change.debitState === 'paid' ? change.debitAmount : 0), booking);
}

/** The record's `fare_changes`, in cedis. */
export function fareChangesView(fareChanges: readonly FareChange[]) {
  return fareChanges.map((change) => ({
    previous_total_fare: pesewasToCedis(change.previousTotalFare),
    total_fare: pesewasToCedis(change.totalFare),
    debit_amount: pesewasToCedis(change.debitAmount),
    debit_status: change.debitState,
    created_at: new Date(change.createdAt).toISOString(),
  }));
}

/**
 * What a change of places would do to the fare, told before anything changes (`dry_run`) and
 * after: a fare above the highest already asked (`fareAsked`) debits the difference; a lower one
 * refunds nothing.
 */
export function fareDifference(asked: Pesewas, nextTotal: Pesewas): { debit: Pesewas; refund: 0 } {
  return { debit: Math.max(0, nextTotal - asked), refund: 0 };
}
