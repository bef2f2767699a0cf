/** The three supported mobile networks, as the contract names them. */
export const PROVIDERS = ['network_a', 'network_b', 'network_c'] as const;
export type MobileMoneyProvider = (typeof PROVIDERS)[number];

/** What the network says of a number. */
export type ResolveResult =
  | { exists: false }
  | { exists: true; provider: MobileMoneyProvider; accountName: string | null };

export interface DebitRequest {
  /** Our idempotency reference: the delivery id. The same reference never debits twice. */
  reference: string;
  provider: MobileMoneyProvider;
  phone: string;
  amountPesewas: number;
  email?: string;
}

/** `pending` until the network confirms; `paid` and `failed` are final. */
export type DebitState = 'pending' | 'paid' | 'failed';

export interface DebitResult {
  state: DebitState;
  /** Why a debit failed, in words safe to log (no provider secrets). */
  reason?: string;
}

/** Thrown when the network cannot be reached or does not answer: worth retrying. */
export class GatewayUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayUnavailableError';
  }
}

/**
 * Thrown by a gateway that keeps its own records in our database (the sandbox network's ledger)
 * when that database fails: our outage, not the network's, so it must not spend the debit's tries.
 */
export class GatewayStoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayStoreUnavailableError';
  }
}

/** Called when a gateway learns a debit's final state on its own (callback or settlement). */
export type DebitSettledListener = (reference: string, result: DebitResult) => void | Promise<void>;

export interface MobileMoneyGateway {
  readonly name: string;
  /** Looks the number up with the network before an account is saved. */
  resolve(provider: MobileMoneyProvider, phone: string): Promise<ResolveResult>;
  /**
   * Requests a debit; idempotent by `reference`. Throws GatewayUnavailableError on the network's
   * outage, GatewayStoreUnavailableError when its records in our own database cannot be reached.
   */
  debit(request: DebitRequest): Promise<DebitResult>;
  /** Asks the network for the current state of a debit (polling). */
  status(reference: string): Promise<DebitResult>;
}
