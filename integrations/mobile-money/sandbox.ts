import type { EntityManager } from '@mikro-orm/postgresql';
import { poolQuery } from '../../db/pool-query';
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
 * `confirmMs`. Its ledger lives in Postgres, so a debit survives a restart and settles exactly once.
 */
export const SANDBOX_NUMBERS = {
  missing: '0000',
  named: '1111',
  declines: '2222',
  outage: '3333',
} as const;
export const SANDBOX_HOLDER_NAME = 'Ama Serwaa';

interface LedgerRow {
  reference: string;
  state: 'pending' | 'paid' | 'failed';
  reason: string | null;
  /** Raw query rows carry timestamps as text. */
  settle_at: Date | string;
}

/**
 * The ledger's statements, named and prepared on a client of the ORM's pool: every sandbox
 * booking records a debit and settles it. Recording a debit returns its row, new or (for a
 * retried request) as first recorded, in one round trip; a retry that races the first request's
 * insert finds no row yet and is answered `pending`, which the first request's settling ends.
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

export class SandboxNetwork implements MobileMoneyGateway {
  readonly name = 'sandbox';
  private listener: DebitSettledListener | undefined;

  constructor(
    private readonly deps: { em: () => EntityManager; confirmMs: number },
  ) {}

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
    const row = await this.ledger(async () => {
      const { rows } = await poolQuery(this.deps.em()).query<LedgerRow>({
        ...RECORD_DEBIT,
        values: [
          request.reference,
          request.phone,
          request.provider,
          request.amountPesewas,
          declined ? 'failed' : 'pending',
          declined ? 'Declined: insufficient funds in the wallet' : null,
          this.deps.confirmMs,
        ],
      });
      return rows[0];
    });
    if (row?.state === 'pending') {
      // The network confirms on its own a little later, like a customer approving on the phone.
      setTimeout(() => void this.settle(request.reference).catch(() => undefined), this.deps.confirmMs + 5).unref();
    }
    return row ? this.result(row) : { state: 'pending' };
  }

  async status(reference: string): Promise<DebitResult> {
    const row = await this.row(reference);
    if (!row) return { state: 'failed', reason: 'No debit with this reference' };
    if (row.state === 'pending' && new Date(row.settle_at).getTime() <= Date.now()) return (await this.settle(reference)) ?? this.result(row);
    return this.result(row);
  }

  /** Confirms a due debit once; only the caller that flips it tells the listener. */
  private async settle(reference: string): Promise<DebitResult | null> {
    const {
      rows: [row],
    } = await poolQuery(this.deps.em()).query<LedgerRow>({ ...SETTLE, values: [reference] });
    if (!row) return null;
    const result = this.result(row);
    await this.listener?.(reference, result);
    return result;
  }

  /** The ledger is kept in our own Postgres: when that fails, the outage is ours, not the network's. */
  private async ledger<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new GatewayStoreUnavailableError(`The sandbox ledger could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async row(reference: string): Promise<LedgerRow | undefined> {
    return (await poolQuery(this.deps.em()).query<LedgerRow>({ ...ROW, values: [reference] })).rows[0];
  }

  private result(row: LedgerRow): DebitResult {
    return row.reason ? { state: row.state, reason: row.reason } : { state: row.state };
  }
}
