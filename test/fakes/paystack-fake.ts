/**
 * A local Paystack over real HTTP (127.0.0.1, random port), answering /charge,
 * /transaction/verify/:reference and /bank/resolve in Paystack's `{ status, message, data }` shape.
 *
 * What a charge does is chosen by the end of the local phone number (longest matching suffix
 * wins; `setBehaviour` adds or replaces one). Built in:
 *   …00 success at once            …01 pay_offline, success on the 2nd verify
 *   …02 declined (400, failed)     …03 hangs (charge recorded, no answer)
 *   …04 answers 500 (no charge)    …05 send_otp, stays pending
 *   …06 pay_offline, failed on the 1st verify
 * Any other number succeeds at once.
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ChargeOutcome =
  | { kind: 'success' }
  /** The customer approves on the phone: pending until `settleAfterVerifies` verify calls. */
  | { kind: 'pay_offline'; settleAfterVerifies: number; finalStatus: 'success' | 'failed'; gatewayResponse?: string }
  | { kind: 'send_otp' }
  | { kind: 'decline'; gatewayResponse: string }
  /** The charge is recorded but the answer never comes, as when a response is lost; it settles as `settlesAs` when first verified. */
  | { kind: 'hang'; settlesAs?: 'success' | 'failed' }
  | { kind: 'server_error' };

export type FakeChargeStatus = 'success' | 'failed' | 'ongoing' | 'send_otp';

export interface FakeCharge {
  id: number;
  reference: string;
  amount: number;
  currency: string;
  email: string;
  phone: string;
  provider: string;
  status: FakeChargeStatus;
  gatewayResponse: string;
  verifyCount: number;
  outcome: ChargeOutcome;
}

export interface FakeAccount {
  /** Paystack's mobile-money bank code the number resolves under: MTN, VOD or ATL. */
  bankCode: string;
  /** Omit for a wallet that resolves without a name. */
  accountName?: string;
}

export interface PaystackFakeOptions {
  secretKey?: string;
  /** Extra or replacement outcomes by phone suffix. */
  behaviours?: Record<string, ChargeOutcome>;
  /** Numbers (local 0XXXXXXXXX form) that /bank/resolve knows. */
  accounts?: Record<string, FakeAccount>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  status: number;
}

export interface PaystackFake {
  baseUrl: string;
  secretKey: string;
  /** Transactions by reference, as /charge created them. */
  charges: Map<string, FakeCharge>;
  /** Every request answered (hung requests are recorded with status 0). */
  requests: RecordedRequest[];
  setBehaviour(phoneSuffix: string, outcome: ChargeOutcome): void;
  /** The next `calls` verify lookups miss even existing transactions, as a lagging read replica would. */
  setVerifyLag(calls: number): void;
  /** The next `calls` verify lookups answer 500, as Paystack in an outage would. */
  setVerifyFailures(calls: number): void;
  /** POSTs a signed `charge.success`/`charge.failed` event for a charge and settles it accordingly. */
  sendWebhook(
    url: string,
    reference: string,
    event?: 'charge.success' | 'charge.failed',
  ): Promise<{ statusCode: number; body: string }>;
  close(): Promise<void>;
}

const DEFAULT_BEHAVIOURS: Record<string, ChargeOutcome> = {
  '00': { kind: 'success' },
  '01': { kind: 'pay_offline', settleAfterVerifies: 2, finalStatus: 'success' },
  '02': { kind: 'decline', gatewayResponse: 'Insufficient funds' },
  '03': { kind: 'hang' },
  '04': { kind: 'server_error' },
  '05': { kind: 'send_otp' },
  '06': { kind: 'pay_offline', settleAfterVerifies: 1, finalStatus: 'failed', gatewayResponse: 'Declined by customer' },
};

const CHARGE_PROVIDERS = new Set(['mtn', 'vod', 'atl']);
const RESOLVE_BANK_CODES = new Set(['MTN', 'VOD', 'ATL']);

export async function startPaystackFake(options: PaystackFakeOptions = {}): Promise<PaystackFake> {
  const secretKey = options.secretKey ?? `sk_test_${randomBytes(16).toString('hex')}`;
  const behaviours: Record<string, ChargeOutcome> = { ...DEFAULT_BEHAVIOURS, ...options.behaviours };
  const accounts = new Map(Object.entries(options.accounts ?? {}));
  const charges = new Map<string, FakeCharge>();
  const requests: RecordedRequest[] = [];
  let verifyLag = 0;
  let verifyFailures = 0;
  let nextId = 1;

  const outcomeFor = (phone: string): ChargeOutcome => {
    let best: { suffix: string; outcome: ChargeOutcome } | undefined;
    for (const [suffix, outcome] of Object.entries(behaviours)) {
      if (phone.endsWith(suffix) && (best === undefined || suffix.length > best.suffix.length)) {
        best = { suffix, outcome };
      }
    }
    return best?.outcome ?? { kind: 'success' };
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const record = { method: req.method ?? 'GET', path: url.pathname, status: 0 };
    requests.push(record);
    const reply = (status: number, body: unknown): void => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };

    readBody(req)
      .then((raw) => {
        if (req.headers.authorization !== `Bearer ${secretKey}`) {
          reply(401, { status: false, message: 'Invalid key' });
          return;
        }
        if (req.method === 'POST' && url.pathname === '/charge') {
          handleCharge(raw, reply);
        } else if (req.method === 'GET' && url.pathname.startsWith('/transaction/verify/')) {
          handleVerify(decodeURIComponent(url.pathname.slice('/transaction/verify/'.length)), reply);
        } else if (req.method === 'GET' && url.pathname === '/bank/resolve') {
          handleResolve(url.searchParams, reply);
        } else {
          reply(404, { status: false, message: 'Not found' });
        }
      })
      .catch(() => reply(400, { status: false, message: 'Invalid request body' }));
  });

  type Reply = (status: number, body: unknown) => void;

  function handleCharge(raw: string, reply: Reply): void {
    const body = parseJson(raw);
    const rawMobileMoney = body?.['mobile_money'];
    const mobileMoney = isRecord(rawMobileMoney) ? rawMobileMoney : undefined;
    const email = body?.['email'];
    const amount = body?.['amount'];
    const reference = body?.['reference'];
    const phone = mobileMoney?.['phone'];
    const provider = mobileMoney?.['provider'];

    if (typeof email !== 'string' || !email.includes('@')) return reply(400, { status: false, message: 'Invalid Email Address Passed' });
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0) return reply(400, { status: false, message: 'Invalid Amount Sent' });
    if (body?.['currency'] !== 'GHS') return reply(400, { status: false, message: 'Currency not supported by merchant' });
    if (typeof reference !== 'string' || reference === '') return reply(400, { status: false, message: 'Invalid reference' });
    if (typeof phone !== 'string' || !/^0\d{9}$/.test(phone)) return reply(400, { status: false, message: 'Invalid phone number' });
    if (typeof provider !== 'string' || !CHARGE_PROVIDERS.has(provider)) return reply(400, { status: false, message: 'Invalid provider' });
    if (charges.has(reference)) return reply(400, { status: false, message: 'Duplicate Transaction Reference' });

    const outcome = outcomeFor(phone);
    if (outcome.kind === 'server_error') return reply(500, { status: false, message: 'An error occurred' });

    const charge: FakeCharge = {
      id: nextId++,
      reference,
      amount,
      currency: 'GHS',
      email,
      phone,
      provider,
      status: 'ongoing',
      gatewayResponse: 'Awaiting customer authorization',
      verifyCount: 0,
      outcome,
    };
    charges.set(reference, charge);

    switch (outcome.kind) {
      case 'hang':
        return; // The request stays open until the client gives up or the fake closes.
      case 'success':
        charge.status = 'success';
        charge.gatewayResponse = 'Approved';
        return reply(200, { status: true, message: 'Charge attempted', data: chargeData(charge) });
      case 'decline':
        charge.status = 'failed';
        charge.gatewayResponse = outcome.gatewayResponse;
        return reply(400, { status: false, message: 'Charge attempted', data: chargeData(charge) });
      case 'send_otp':
        charge.status = 'send_otp';
        return reply(200, {
          status: true,
          message: 'Charge attempted',
          data: { ...chargeData(charge), status: 'send_otp', display_text: 'Please enter the OTP sent to your phone' },
        });
      case 'pay_offline':
        return reply(200, {
          status: true,
          message: 'Charge attempted',
          data: {
            ...chargeData(charge),
            status: 'pay_offline',
            display_text: 'Please complete authorization process on your mobile phone',
          },
        });
    }
  }

  function handleVerify(reference: string, reply: Reply): void {
    if (verifyFailures > 0) {
      verifyFailures -= 1;
      return reply(500, { status: false, message: 'An error occurred' });
    }
    const charge = charges.get(reference);
    if (charge === undefined || verifyLag > 0) {
      if (verifyLag > 0) verifyLag -= 1;
      return reply(400, { status: false, message: 'Transaction reference not found', code: 'transaction_not_found' });
    }
    charge.verifyCount += 1;
    const { outcome } = charge;
    if (outcome.kind === 'pay_offline' && charge.status === 'ongoing' && charge.verifyCount >= outcome.settleAfterVerifies) {
      charge.status = outcome.finalStatus;
      charge.gatewayResponse = outcome.gatewayResponse ?? (outcome.finalStatus === 'success' ? 'Approved' : 'Declined');
    }
    if (outcome.kind === 'hang' && outcome.settlesAs && charge.status === 'ongoing') {
      charge.status = outcome.settlesAs;
      charge.gatewayResponse = outcome.settlesAs === 'success' ? 'Approved' : 'Declined';
    }
    reply(200, { status: true, message: 'Verification successful', data: chargeData(charge) });
  }

  function handleResolve(params: URLSearchParams, reply: Reply): void {
    const accountNumber = params.get('account_number');
    const bankCode = params.get('bank_code');
    if (!accountNumber || !bankCode || !RESOLVE_BANK_CODES.has(bankCode)) {
      return reply(400, { status: false, message: 'Invalid bank code or account number' });
    }
    const account = accounts.get(accountNumber);
    if (account === undefined || account.bankCode !== bankCode) {
      return reply(422, { status: false, message: 'Could not resolve account name. Check parameters or try again.' });
    }
    reply(200, {
      status: true,
      message: 'Account number resolved',
      data: { account_number: accountNumber, account_name: account.accountName ?? '', bank_id: 0 },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    secretKey,
    charges,
    requests,
    setBehaviour(phoneSuffix, outcome) {
      behaviours[phoneSuffix] = outcome;
    },
    setVerifyLag(calls) {
      verifyLag = calls;
    },
    setVerifyFailures(calls) {
      verifyFailures = calls;
    },
    async sendWebhook(url, reference, event = 'charge.success') {
      const charge = charges.get(reference);
      if (charge === undefined) throw new Error(`no charge with reference ${reference}`);
      charge.status = event === 'charge.success' ? 'success' : 'failed';
      charge.gatewayResponse = event === 'charge.success' ? 'Approved' : 'Declined';
      const raw = Buffer.from(JSON.stringify({ event, data: chargeData(charge) }));
      const signature = createHmac('sha512', secretKey).update(raw).digest('hex');
      return post(url, raw, { 'content-type': 'application/json', 'x-paystack-signature': signature });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections(); // Ends hung requests and idle keep-alive sockets.
      }),
  };
}

/** The transaction as Paystack's charge and verify endpoints show it. */
function chargeData(charge: FakeCharge): Record<string, unknown> {
  return {
    id: charge.id,
    domain: 'test',
    reference: charge.reference,
    amount: charge.amount,
    currency: charge.currency,
    status: charge.status,
    gateway_response: charge.gatewayResponse,
    channel: 'mobile_money',
    paid_at: charge.status === 'success' ? new Date().toISOString() : null,
    customer: { email: charge.email },
    authorization: { channel: 'mobile_money', bank: charge.provider.toUpperCase(), mobile_money_number: charge.phone },
  };
}

function post(url: string, body: Buffer, headers: Record<string, string>): Promise<{ statusCode: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      readBody(res).then((text) => resolve({ statusCode: res.statusCode ?? 0, body: text }), reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function readBody(stream: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', reject);
  });
}

function parseJson(raw: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
