import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { GatewayUnavailableError, type DebitRequest } from '../../integrations/mobile-money/gateway';
import {
  PaystackGateway,
  parsePaystackEvent,
  verifyPaystackSignature,
} from '../../integrations/mobile-money/paystack';
import { startPaystackFake, type PaystackFake } from '../fakes/paystack-fake';

// Phone endings pick the fake's behaviour (see test/fakes/paystack-fake.ts).
const APPROVES = '+233241234500';
const APPROVES_ON_PHONE = '+233241234501';
const DECLINES = '+233241234502';
const HANGS = '+233241234503';
const SERVER_ERROR = '+233241234504';
const APPROVAL_REFUSED = '+233241234506';

let fake: PaystackFake;
let gateway: PaystackGateway;
let seq = 0;

function debitRequest(phone: string, overrides: Partial<DebitRequest> = {}): DebitRequest {
  seq += 1;
  return {
    reference: `dlv-test-${process.pid}-${seq}`,
    provider: 'network_a',
    phone,
    amountPesewas: 1250,
    email: 'partner@example.com',
    ...overrides,
  };
}

function chargeRequests(): number {
  return fake.requests.filter((r) => r.method === 'POST' && r.path === '/charge').length;
}

beforeEach(async () => {
  fake = await startPaystackFake({
    accounts: {
      '0241234567': { bankCode: 'MTN', accountName: 'Ama Mensah' },
      '0551234567': { bankCode: 'MTN' },
      // Ported from Telecel (020) to MTN.
      '0201234567': { bankCode: 'MTN', accountName: 'Kwesi Boateng' },
    },
  });
  gateway = new PaystackGateway({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, timeoutMs: 2_000 });
});

afterEach(async () => {
  await fake.close();
});

describe('PaystackGateway.debit', () => {
  it('reports paid when the network approves the charge at once', async () => {
    const request = debitRequest(APPROVES);

    await expect(gateway.debit(request)).resolves.toEqual({ state: 'paid' });

    const charge = fake.charges.get(request.reference);
    expect(charge).toMatchObject({ amount: 1250, currency: 'GHS', phone: '0241234500', provider: 'mtn' });
  });

  it('sends each network its Paystack provider code', async () => {
    const telecel = debitRequest('+233201234500', { provider: 'network_b' });
    const airtelTigo = debitRequest('+233261234500', { provider: 'network_c' });

    await gateway.debit(telecel);
    await gateway.debit(airtelTigo);

    expect(fake.charges.get(telecel.reference)?.provider).toBe('vod');
    expect(fake.charges.get(airtelTigo.reference)?.provider).toBe('atl');
  });

  it('stays pending while the customer approves on the phone, then polls to paid', async () => {
    const request = debitRequest(APPROVES_ON_PHONE);

    await expect(gateway.debit(request)).resolves.toEqual({ state: 'pending' });
    await expect(gateway.status(request.reference)).resolves.toEqual({ state: 'pending' });
    await expect(gateway.status(request.reference)).resolves.toEqual({ state: 'paid' });
  });

  it('polls to failed with the reason when the customer refuses on the phone', async () => {
    const request = debitRequest(APPROVAL_REFUSED);

    await expect(gateway.debit(request)).resolves.toEqual({ state: 'pending' });
    await expect(gateway.status(request.reference)).resolves.toEqual({
      state: 'failed',
      reason: 'Declined by customer',
    });
  });

  it('reports failed with the gateway response when the charge is declined', async () => {
    await expect(gateway.debit(debitRequest(DECLINES))).resolves.toEqual({
      state: 'failed',
      reason: 'Insufficient funds',
    });
  });

  it('stays pending when Paystack asks for an OTP', async () => {
    await expect(gateway.debit(debitRequest('+233241234505'))).resolves.toEqual({ state: 'pending' });
  });

  it('throws GatewayUnavailableError when Paystack does not answer in time', async () => {
    const impatient = new PaystackGateway({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, timeoutMs: 300 });

    await expect(impatient.debit(debitRequest(HANGS))).rejects.toBeInstanceOf(GatewayUnavailableError);
  });

  it('throws GatewayUnavailableError when Paystack answers 500', async () => {
    await expect(gateway.debit(debitRequest(SERVER_ERROR))).rejects.toBeInstanceOf(GatewayUnavailableError);
  });

  it('throws GatewayUnavailableError when Paystack cannot be reached', async () => {
    const baseUrl = fake.baseUrl;
    await fake.close();
    fake = await startPaystackFake();
    const unreachable = new PaystackGateway({ secretKey: fake.secretKey, baseUrl, timeoutMs: 1_000 });

    await expect(unreachable.debit(debitRequest(APPROVES))).rejects.toBeInstanceOf(GatewayUnavailableError);
  });

  it('charges only once when the same reference is debited twice', async () => {
    const request = debitRequest(APPROVES_ON_PHONE);

    const first = await gateway.debit(request);
    const second = await gateway.debit(request);

    expect(first).toEqual({ state: 'pending' });
    expect(second.state).not.toBe('failed');
    expect(fake.charges.size).toBe(1);
    expect(chargeRequests()).toBe(1);
  });

  it('does not charge again when a debit is retried after its answer was lost', async () => {
    const impatient = new PaystackGateway({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, timeoutMs: 300 });
    const request = debitRequest(HANGS);

    await expect(impatient.debit(request)).rejects.toBeInstanceOf(GatewayUnavailableError);
    await expect(impatient.debit(request)).resolves.toEqual({ state: 'pending' });

    expect(fake.charges.size).toBe(1);
    expect(chargeRequests()).toBe(1);
  });

  it('reports the existing transaction when /charge says the reference is a duplicate', async () => {
    const request = debitRequest(APPROVES);
    await gateway.debit(request);
    fake.setVerifyLag(1); // The pre-charge verify misses, so /charge meets the duplicate.

    await expect(gateway.debit(request)).resolves.toEqual({ state: 'paid' });

    expect(fake.charges.size).toBe(1);
    expect(fake.requests.filter((r) => r.path === '/charge').map((r) => r.status)).toEqual([200, 400]);
  });

  it('sends the number in local 0XXXXXXXXX form and the amount in whole pesewas', async () => {
    const request = debitRequest(APPROVES, { amountPesewas: 5 });

    await gateway.debit(request);

    expect(fake.charges.get(request.reference)).toMatchObject({ phone: '0241234500', amount: 5 });
  });

  it('refuses a fractional amount before contacting Paystack', async () => {
    await expect(gateway.debit(debitRequest(APPROVES, { amountPesewas: 12.5 }))).rejects.toBeInstanceOf(RangeError);
    expect(fake.requests).toHaveLength(0);
  });

  it('uses the default email when the request has none', async () => {
    const withDefault = new PaystackGateway({
      secretKey: fake.secretKey,
      baseUrl: fake.baseUrl,
      defaultEmail: 'payments@example.com',
    });
    const request = debitRequest(APPROVES, { email: undefined });

    await withDefault.debit(request);

    expect(fake.charges.get(request.reference)?.email).toBe('payments@example.com');
  });

  it('never puts the secret key in an error message', async () => {
    const secretKey = 'sk_live_must_not_leak_0123456789';
    const rejected = new PaystackGateway({ secretKey, baseUrl: fake.baseUrl });

    const error: unknown = await rejected.debit(debitRequest(APPROVES)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(GatewayUnavailableError);
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(secretKey);
    expect(String((error as Error).stack)).not.toContain(secretKey);
  });
});

describe('PaystackGateway.status', () => {
  it('reports failed for a reference Paystack has never seen', async () => {
    await expect(gateway.status('never-charged')).resolves.toEqual({
      state: 'failed',
      reason: 'no transaction with this reference',
    });
  });
});

describe('PaystackGateway.resolve', () => {
  it('returns the account name Paystack resolves', async () => {
    await expect(gateway.resolve('network_a', '+233241234567')).resolves.toEqual({
      exists: true,
      provider: 'network_a',
      accountName: 'Ama Mensah',
    });
  });

  it('returns a null name for a wallet that resolves without one', async () => {
    await expect(gateway.resolve('network_a', '+233551234567')).resolves.toEqual({
      exists: true,
      provider: 'network_a',
      accountName: null,
    });
  });

  it('accepts an unresolvable number in a mobile range, with the network its prefix gives', async () => {
    await expect(gateway.resolve('network_b', '+233549999999')).resolves.toEqual({
      exists: true,
      provider: 'network_a',
      accountName: null,
    });
  });

  it("prefers Paystack's answer over the prefix for a ported number", async () => {
    await expect(gateway.resolve('network_a', '+233201234567')).resolves.toEqual({
      exists: true,
      provider: 'network_a',
      accountName: 'Kwesi Boateng',
    });
  });

  it('finds a name under the prefix network when the partner named the wrong one', async () => {
    await expect(gateway.resolve('network_c', '+233241234567')).resolves.toEqual({
      exists: true,
      provider: 'network_a',
      accountName: 'Ama Mensah',
    });
  });

  it('reports a number outside every mobile range as not existing', async () => {
    await expect(gateway.resolve('network_a', '+233301234567')).resolves.toEqual({ exists: false });
  });

  it('reports a malformed number as not existing without asking Paystack', async () => {
    await expect(gateway.resolve('network_a', '0241234567')).resolves.toEqual({ exists: false });
    await expect(gateway.resolve('network_a', '+23324123456')).resolves.toEqual({ exists: false });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('verifyPaystackSignature', () => {
  const secret = 'sk_test_signature_secret';
  const body = Buffer.from('{"event":"charge.success","data":{"reference":"dlv-1","status":"success"}}');
  const sign = (raw: Buffer, key = secret): string => createHmac('sha512', key).update(raw).digest('hex');

  it('accepts the HMAC-SHA512 of the raw body', () => {
    expect(verifyPaystackSignature(body, sign(body), secret)).toBe(true);
  });

  it('rejects a signature made with another key', () => {
    expect(verifyPaystackSignature(body, sign(body, 'sk_test_other'), secret)).toBe(false);
  });

  it('rejects a missing or empty header', () => {
    expect(verifyPaystackSignature(body, undefined, secret)).toBe(false);
    expect(verifyPaystackSignature(body, '', secret)).toBe(false);
  });

  it('rejects a body changed after signing', () => {
    const tampered = Buffer.from(body.toString().replace('charge.success', 'charge.failed'));
    expect(verifyPaystackSignature(tampered, sign(body), secret)).toBe(false);
  });

  it('rejects a signature of the wrong length', () => {
    expect(verifyPaystackSignature(body, sign(body).slice(0, 64), secret)).toBe(false);
  });
});

describe('parsePaystackEvent', () => {
  const event = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

  it('reads charge.success as paid', () => {
    expect(parsePaystackEvent(event({ event: 'charge.success', data: { reference: 'dlv-1', status: 'success' } }))).toEqual({
      reference: 'dlv-1',
      result: { state: 'paid' },
    });
  });

  it('reads charge.failed as failed with the gateway response', () => {
    const raw = event({ event: 'charge.failed', data: { reference: 'dlv-2', status: 'failed', gateway_response: 'Timed out' } });
    expect(parsePaystackEvent(raw)).toEqual({ reference: 'dlv-2', result: { state: 'failed', reason: 'Timed out' } });
  });

  it('ignores other events', () => {
    expect(parsePaystackEvent(event({ event: 'transfer.success', data: { reference: 'trf-1' } }))).toBeNull();
  });

  it('ignores a body that is not JSON or has no reference', () => {
    expect(parsePaystackEvent(Buffer.from('not json'))).toBeNull();
    expect(parsePaystackEvent(event({ event: 'charge.success', data: {} }))).toBeNull();
  });
});

describe('Paystack webhook', () => {
  it('delivers a charge.success that verifies and parses as paid', async () => {
    const received: { body: Buffer; signature: string | undefined }[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const signature = req.headers['x-paystack-signature'];
        received.push({ body: Buffer.concat(chunks), signature: typeof signature === 'string' ? signature : undefined });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;

    try {
      const request = debitRequest(APPROVES_ON_PHONE);
      await expect(gateway.debit(request)).resolves.toEqual({ state: 'pending' });

      const delivery = await fake.sendWebhook(`http://127.0.0.1:${port}/webhooks/paystack`, request.reference);

      expect(delivery.statusCode).toBe(200);
      const [callback] = received;
      expect(callback).toBeDefined();
      expect(verifyPaystackSignature(callback!.body, callback!.signature, fake.secretKey)).toBe(true);
      expect(parsePaystackEvent(callback!.body)).toEqual({ reference: request.reference, result: { state: 'paid' } });
      await expect(gateway.status(request.reference)).resolves.toEqual({ state: 'paid' });
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
