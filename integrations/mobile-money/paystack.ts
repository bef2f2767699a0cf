/**
 * Mobile Money through Paystack's Charge API (Ghana, GHS).
 *
 * Decisions:
 * - Idempotency: `debit` verifies the reference before charging, so a retried debit (after a
 *   timeout, a crash or a redelivered job) reports the existing transaction instead of charging
 *   again. If /charge still answers "Duplicate Transaction Reference" (two debits raced, or the
 *   read side had not caught up), the transaction is verified and its state returned.
 * - Outages (no answer, timeout, 429, 5xx) throw GatewayUnavailableError so callers retry with the
 *   same reference; a 400/422 from /charge is a decline and returns `failed`. A rejected secret
 *   key (401/403) is a configuration fault, not an outage, and throws a plain Error.
 * - States Paystack has not documented as final map to `pending`: we never claim money moved, or
 *   did not, on a status we do not understand.
 * - `status` of a reference Paystack does not know returns `failed`: nothing was charged, and a
 *   poller should stop waiting.
 * - Existence (`resolve`): Paystack's account-name lookup is asked under the partner's network
 *   first (numbers are portable, so a name found there wins over the prefix). If it cannot
 *   resolve, the other two networks are asked, the prefix's network first: a number that resolves
 *   elsewhere belongs to that network (a ported number). Failing every lookup, the number's prefix
 *   picks the network and the number is accepted with `accountName: null`, because name lookup is
 *   not offered for every wallet. A number "does not exist" only when Paystack cannot resolve it
 *   AND it lies outside every Ghana mobile-money prefix range (or is not `+233` + 9 digits).
 * - The secret key travels only in the Authorization header; errors carry method, path and
 *   status, never the request config, so logging an error cannot leak the key.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import {
  GatewayUnavailableError,
  PROVIDERS,
  type DebitRequest,
  type DebitResult,
  type MobileMoneyGateway,
  type MobileMoneyProvider,
  type ResolveResult,
} from './gateway';
import { networkOf } from './networks';

export interface PaystackGatewayOptions {
  secretKey: string;
  /** Defaults to https://api.paystack.co. */
  baseUrl?: string;
  /** Per request; defaults to 15 s. */
  timeoutMs?: number;
  /** Paystack requires an email on every charge; used when the request has none. */
  defaultEmail?: string;
}

/** Paystack's `mobile_money.provider` codes for a charge. */
const CHARGE_PROVIDER: Record<MobileMoneyProvider, string> = {
  network_a: 'mtn',
  network_b: 'vod',
  network_c: 'atl',
};

/** Paystack's mobile-money "bank" codes for account-name resolution. */
const RESOLVE_BANK_CODE: Record<MobileMoneyProvider, string> = {
  network_a: 'MTN',
  network_b: 'VOD',
  network_c: 'ATL',
};

const PAID = new Set(['success']);
const FAILED = new Set(['failed', 'abandoned', 'reversed']);

interface Envelope {
  status?: boolean;
  message?: string;
  data?: Record<string, unknown>;
}

type Lookup = { resolved: true; accountName: string | null } | { resolved: false };

export class PaystackGateway implements MobileMoneyGateway {
  readonly name = 'paystack';
  private readonly http: AxiosInstance;
  private readonly defaultEmail: string | undefined;

  constructor(options: PaystackGatewayOptions) {
    this.defaultEmail = options.defaultEmail;
    this.http = axios.create({
      baseURL: options.baseUrl ?? 'https://api.paystack.co',
      timeout: options.timeoutMs ?? 15_000,
      headers: { Authorization: `Bearer ${options.secretKey}`, 'Content-Type': 'application/json' },
      // Every status is inspected here; only transport failures reject.
      validateStatus: () => true,
    });
  }

  async resolve(provider: MobileMoneyProvider, phone: string): Promise<ResolveResult> {
    const local = toLocalPhone(phone);
    if (local === null) return { exists: false };

    const asked = await this.lookupName(local, provider);
    if (asked.resolved) return { exists: true, provider, accountName: asked.accountName };

    // A ported number resolves under its new network: ask the others, the prefix's network first.
    const byPrefix = providerForLocalPhone(local);
    const others = PROVIDERS.filter((p) => p !== provider).sort((a, b) => Number(b === byPrefix) - Number(a === byPrefix));
    for (const other of others) {
      const found = await this.lookupName(local, other);
      if (found.resolved) return { exists: true, provider: other, accountName: found.accountName };
    }
    if (byPrefix === null) return { exists: false };
    return { exists: true, provider: byPrefix, accountName: null };
  }

  async debit(request: DebitRequest): Promise<DebitResult> {
    if (!Number.isSafeInteger(request.amountPesewas) || request.amountPesewas <= 0) {
      throw new RangeError('amountPesewas must be a positive integer');
    }
    const email = request.email ?? this.defaultEmail;
    if (email === undefined) throw new Error('Paystack needs an email for a charge: set defaultEmail');

    const existing = await this.verify(request.reference);
    if (existing !== null) return existing;

    const local = toLocalPhone(request.phone);
    if (local === null) return { state: 'failed', reason: 'not a Ghana mobile number' };

    const response = await this.send('POST', '/charge', {
      email,
      amount: request.amountPesewas,
      currency: 'GHS',
      reference: request.reference,
      mobile_money: { phone: local, provider: CHARGE_PROVIDER[request.provider] },
    });
    const body = envelope(response);

    if (isDuplicateReference(response.status, body)) {
      const settled = await this.verify(request.reference);
      if (settled === null) {
        throw new GatewayUnavailableError('Paystack reported a duplicate reference it cannot find yet');
      }
      return settled;
    }
    if (response.status === 400 || response.status === 422) {
      return { state: 'failed', reason: reasonOf(body) };
    }
    this.expectSuccess('POST /charge', response);
    return toDebitResult(body);
  }

  async status(reference: string): Promise<DebitResult> {
    return (await this.verify(reference)) ?? { state: 'failed', reason: 'no transaction with this reference' };
  }

  /** The transaction's state, or null when Paystack has no transaction with this reference. */
  private async verify(reference: string): Promise<DebitResult | null> {
    const response = await this.send('GET', `/transaction/verify/${encodeURIComponent(reference)}`);
    const body = envelope(response);
    if (isReferenceNotFound(response.status, body)) return null;
    this.expectSuccess('GET /transaction/verify', response);
    return toDebitResult(body);
  }

  private async lookupName(localPhone: string, provider: MobileMoneyProvider): Promise<Lookup> {
    const response = await this.send('GET', '/bank/resolve', undefined, {
      account_number: localPhone,
      bank_code: RESOLVE_BANK_CODE[provider],
    });
    // Paystack answers 422 (sometimes 400/404) when it cannot resolve the account.
    if (response.status === 400 || response.status === 404 || response.status === 422) return { resolved: false };
    this.expectSuccess('GET /bank/resolve', response);
    const body = envelope(response);
    if (body.status === false) return { resolved: false };
    const name = body.data?.['account_name'];
    return { resolved: true, accountName: typeof name === 'string' && name.trim() !== '' ? name.trim() : null };
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    data?: unknown,
    params?: Record<string, string>,
  ): Promise<AxiosResponse<unknown>> {
    try {
      return await this.http.request<unknown>({ method, url: path, data, params });
    } catch (error) {
      // A fresh error without `cause`: axios errors carry the request config, secret included.
      const code = axios.isAxiosError(error) && error.code ? error.code : 'network error';
      throw new GatewayUnavailableError(`Paystack ${method} ${routeOf(path)} did not answer (${code})`);
    }
  }

  private expectSuccess(route: string, response: AxiosResponse<unknown>): void {
    const { status } = response;
    if (status >= 200 && status < 300) return;
    if (status === 429 || status >= 500) {
      throw new GatewayUnavailableError(`Paystack ${route} answered ${status}`);
    }
    if (status === 401 || status === 403) {
      throw new Error(`Paystack ${route} refused the secret key (${status})`);
    }
    throw new Error(`Paystack ${route} answered ${status}: ${reasonOf(envelope(response))}`);
  }
}

/**
 * True when `x-paystack-signature` is the HMAC-SHA512 (hex) of the raw body keyed with the secret.
 * The body must be the bytes as received: re-serialised JSON does not match.
 */
export function verifyPaystackSignature(
  rawBody: Buffer,
  signatureHeader: string | undefined,
  secretKey: string,
): boolean {
  if (signatureHeader === undefined || signatureHeader === '') return false;
  const expected = Buffer.from(createHmac('sha512', secretKey).update(rawBody).digest('hex'), 'utf8');
  const given = Buffer.from(signatureHeader.trim().toLowerCase(), 'utf8');
  if (given.length !== expected.length) return false;
  return timingSafeEqual(given, expected);
}

/** The settled debit a `charge.success` / `charge.failed` webhook reports; null for anything else. */
export function parsePaystackEvent(rawBody: Buffer): { reference: string; result: DebitResult } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return null;
  }
  if (!isRecord(parsed) || !isRecord(parsed['data'])) return null;
  const data = parsed['data'];
  const reference = data['reference'];
  if (typeof reference !== 'string' || reference === '') return null;

  switch (parsed['event']) {
    case 'charge.success':
      return { reference, result: { state: 'paid' } };
    case 'charge.failed':
      return { reference, result: { state: 'failed', reason: reasonOf({ data }) } };
    default:
      return null;
  }
}

/** `+233241234567` → `0241234567`; null unless `+233` + 9 digits. */
function toLocalPhone(phone: string): string | null {
  const match = /^\+233(\d{9})$/.exec(phone.replace(/[\s-]/g, ''));
  return match ? `0${match[1]}` : null;
}

/** The operator's allocated range; only a hint, since numbers are portable. */
function providerForLocalPhone(localPhone: string): MobileMoneyProvider | null {
  return networkOf(`+233${localPhone.slice(1)}`);
}

function toDebitResult(body: Envelope): DebitResult {
  const status = body.data?.['status'];
  if (typeof status !== 'string') {
    return body.status === false ? { state: 'failed', reason: reasonOf(body) } : { state: 'pending' };
  }
  if (PAID.has(status)) return { state: 'paid' };
  if (FAILED.has(status)) return { state: 'failed', reason: reasonOf(body) };
  // pending, pay_offline (approve on phone), send_otp, ongoing, queued and anything new.
  return { state: 'pending' };
}

function isReferenceNotFound(httpStatus: number, body: Envelope): boolean {
  if (httpStatus === 404) return true;
  return httpStatus === 400 && /reference not found|transaction not found/i.test(body.message ?? '');
}

function isDuplicateReference(httpStatus: number, body: Envelope): boolean {
  return httpStatus >= 400 && httpStatus < 500 && /duplicate transaction reference/i.test(body.message ?? '');
}

/** A short reason, Paystack's own words first; never includes request data. */
function reasonOf(body: Envelope): string {
  const data = body.data ?? {};
  for (const candidate of [data['gateway_response'], data['message'], body.message]) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate.trim().slice(0, 200);
  }
  return 'declined';
}

function envelope(response: AxiosResponse<unknown>): Envelope {
  const body = response.data;
  if (!isRecord(body)) return {};
  return {
    status: typeof body['status'] === 'boolean' ? body['status'] : undefined,
    message: typeof body['message'] === 'string' ? body['message'] : undefined,
    data: isRecord(body['data']) ? body['data'] : undefined,
  };
}

/** The route without the reference, so logs group by endpoint. */
function routeOf(path: string): string {
  return path.startsWith('/transaction/verify/') ? '/transaction/verify' : path;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
