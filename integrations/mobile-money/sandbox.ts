import {
  GatewayStoreUnavailableError,
  GatewayUnavailableError,
  type DebitRequest,
  type DebitResult,
  type DebitSettledListener,
  type MobileMoneyGateway,
  type MobileMoneyProvider,
  type ResolveResult,
} from './gateway';
import { networkOf } from './networks';

/**
 * The sandbox Mobile Money network (DESIGN section 6), documented like card test numbers.
 * By the last four digits: 0000 does not exist · 1111 is held by "Ama Serwaa" · 2222 declines
 * every debit · 3333 times out on every debit · anything else is debited and confirmed after
 * `confirmMs`. Its ledger lives in our Postgres (a `SandboxLedger`), so a debit survives a restart
 * and settles exactly once.
 */
export const SANDBOX_NUMBERS = {
  missing: '0000',
  named: '1111',
  declines: '2222',
  outage: '3333',
} as const;
export const SANDBOX_HOLDER_NAME = 'Ama Serwaa';

/** A debit as the sandbox's ledger keeps it. */
export interface SandboxLedgerEntry {
  reference: string;
  state: 'pending' | 'paid' | 'failed';
  reason: string | null;
  /** When it confirms on its own; raw query rows carry timestamps as text. */
  settle_at: Date | string;
}

/**
 * Where the sandbox keeps its debits, so a debit survives a restart and settles exactly once.
 * A failure is thrown as it comes: the network decides what it means to its callers.
 */
export interface SandboxLedger {
  /**
   * Records a debit, due to settle `settleAfterMs` from now, and returns it; a retried request
   * gets the debit as first recorded, and one that races the first request's insert may get
   * nothing yet (it is answered `pending`, which the first request's settling ends).
   */
  record(debit: {
    reference: string;
    phone: string;
    provider: MobileMoneyProvider;
    amountPesewas: number;
    state: 'pending' | 'failed';
    reason: string | null;
    settleAfterMs: number;
  }): Promise<SandboxLedgerEntry | undefined>;
  find(reference: string): Promise<SandboxLedgerEntry | undefined>;
  /** Marks a pending debit that is due as paid, and returns it; undefined when none was flipped. */
  settleIfDue(reference: string): Promise<SandboxLedgerEntry | undefined>;
}

export class SandboxNetwork implements MobileMoneyGateway {
  readonly name = 'sandbox';
  private listener: DebitSettledListener | undefined;

  constructor(private readonly deps: { ledger: SandboxLedger; confirmMs: number }) {}

  /** Who to tell when a debit settles: the worker signals the delivery workflow. */
  onSettled(listener: DebitSettledListener): void {
    this.listener = listener;
  }

  async resolve(_provider: MobileMoneyProvider, phone: string): Promise<ResolveResult> {
    const network = networkOf(phone);
    if (!network || phone.endsWith(SANDBOX_NUMBERS.missing)) return { exists: false };
    return { exists: true, provider: network, accountName: phone.endsWith(SANDBOX_NUMBERS.named) ? SANDBOX_HOLDER_NAME : null };
  }

  async debit(request: DebitRequest): Promise<DebitResult> {
    if (request.phone.endsWith(SANDBOX_NUMBERS.outage)) {
      throw new GatewayUnavailableError('The sandbox network timed out (test number …3333)');
    }
    const declined = request.phone.endsWith(SANDBOX_NUMBERS.declines);
    const row = await this.fromLedger(() =>
      this.deps.ledger.record({
        reference: request.reference,
        phone: request.phone,
        provider: request.provider,
        amountPesewas: request.amountPesewas,
        state: declined ? 'failed' : 'pending',
        reason: declined ? 'Declined: insufficient funds in the wallet' : null,
        settleAfterMs: this.deps.confirmMs,
      }),
    );
    if (row?.state === 'pending') {
      // The network confirms on its own a little later, like a customer approving on the phone.
      setTimeout(() => void this.settle(request.reference).catch(() => undefined), this.deps.confirmMs + 5).unref();
    }
    return row ? this.result(row) : { state: 'pending' };
  }

  async status(reference: string): Promise<DebitResult> {
    const row = await this.deps.ledger.find(reference);
    if (!row) return { state: 'failed', reason: 'No debit with this reference' };
    if (row.state === 'pending' && new Date(row.settle_at).getTime() <= Date.now()) return (await this.settle(reference)) ?? this.result(row);
    return this.result(row);
  }

  /** Confirms a due debit once; only the caller that flips it tells the listener. */
  private async settle(reference: string): Promise<DebitResult | null> {
    const row = await this.deps.ledger.settleIfDue(reference);
    if (!row) return null;
    const result = this.result(row);
    await this.listener?.(reference, result);
    return result;
  }

  /** The ledger is kept in our own Postgres: when that fails, the outage is ours, not the network's. */
  private async fromLedger<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new GatewayStoreUnavailableError(`The sandbox ledger could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private result(row: SandboxLedgerEntry): DebitResult {
    return row.reason ? { state: row.state, reason: row.reason } : { state: row.state };
  }
}
