import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner, makeRider } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { ACCRA, book, registerAccount } from '../helpers/bookings';
import { deliveryWorkflowId } from '../../domain/reference';
import { HttpSms } from '../../integrations/sms/http-sms';
import { loadSettings } from '../../config/settings';
import { readOutbox } from '../../db/sms-outbox';

/**
 * Live hand-over codes texted through an SMS HTTP API (SMS_PROVIDER=http), against a local
 * stand-in for a bulk-SMS provider: our worker posts to it over HTTP.
 */
interface SmsRequest {
  headers: IncomingHttpHeaders;
  body: { sender: string; recipients: string[]; message: string };
}

const API_KEY = 'sms-api-key-0123456789abcdef';
let smsApi: Server;
let smsUrl: string;
const requests: SmsRequest[] = [];
/** How many of the next requests the SMS API refuses with 503. */
let failNext = 0;
/** While true the SMS API refuses every request with 503, as in an outage. */
let down = false;
/** Recipients of the requests refused while it was down. */
const refusedTo: string[] = [];
let stack: TestStack;

beforeAll(async () => {
  smsApi = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SmsRequest['body'];
      if (down) refusedTo.push(...body.recipients);
      if (down || failNext > 0) {
        if (!down) failNext -= 1;
        res.writeHead(503).end();
        return;
      }
      requests.push({ headers: req.headers, body });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"success"}');
    });
  });
  await new Promise<void>((resolve) => smsApi.listen(0, '127.0.0.1', resolve));
  smsUrl = `http://127.0.0.1:${(smsApi.address() as AddressInfo).port}/v1/sms/send`;
  stack = await startTestStack({ env: { SMS_PROVIDER: 'http', SMS_URL: smsUrl, SMS_API_KEY: API_KEY, SMS_SENDER: 'DLVRY' } });
});
afterAll(async () => {
  await stack?.close();
  smsApi?.closeAllConnections();
  await new Promise((resolve) => smsApi?.close(resolve));
});

let phoneCounter = 0;
function recipientPhone(): string {
  phoneCounter += 1;
  return `+23324${String(Date.now() % 10_000_000).padStart(7, '0').slice(0, 5)}${String(phoneCounter).padStart(2, '0')}`;
}

const textsTo = (phone: string) => requests.filter((r) => r.body.recipients.includes(phone));
async function outboxTo(phone: string): Promise<string[]> {
  return (await readOutbox(stack.orm.em.fork(), phone)).map((text) => text.body);
}

describe('hand-over codes through an SMS HTTP API', () => {
  it('texts a live recipient their code through the API, and the rider hands over with it', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await makeRider(stack.orm, ACCRA.makola, 'Kojo Texted');
    const phone = recipientPhone();
    const created = await book(stack.baseUrl, partner.liveKey, { verification_method: 'otp', recipient_phone: phone });

    const [text] = await eventually(async () => (textsTo(phone).length ? textsTo(phone) : undefined), 15_000, 'the code texted');
    expect(text!.headers['api-key']).toBe(API_KEY);
    expect(text!.headers['content-type']).toMatch(/^application\/json/);
    expect(text!.body).toEqual({ sender: 'DLVRY', recipients: [phone], message: expect.stringMatching(/\b\d{6}$/) });
    expect(text!.body.message).toContain(created.reference);
    expect(await outboxTo(phone)).toEqual([]);

    const code = /(\d{6})$/.exec(text!.body.message)![1]!;
    const riderApi = api(stack.baseUrl, rider.riderToken);
    await eventually(async () => (await riderApi.post(`/rider/deliveries/${created.id}/accept`)).status === 200, 15_000, 'accepted');
    expect((await riderApi.post(`/rider/deliveries/${created.id}/pickup`)).status).toBe(200);
    expect((await riderApi.post(`/rider/deliveries/${created.id}/depart`)).status).toBe(200);
    expect((await riderApi.post(`/rider/deliveries/${created.id}/deliver`, { otp: code })).status).toBe(200);
    expect(textsTo(phone)).toHaveLength(1);
  });

  it('tries again while the SMS API is refusing, and texts one working code once it answers', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const phone = recipientPhone();
    failNext = 2;
    const created = await book(stack.baseUrl, partner.liveKey, { verification_method: 'otp', recipient_phone: phone });

    await eventually(async () => textsTo(phone).length > 0, 20_000, 'the code texted after the refusals');
    expect(failNext).toBe(0);
    expect(textsTo(phone)).toHaveLength(1);
    await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`);
  });

  it('debits and dispatches an otp booking while the SMS API is down, and texts the code once it is back', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const rider = await makeRider(stack.orm, ACCRA.makola, 'Kojo Patient');
    const riderApi = api(stack.baseUrl, rider.riderToken);
    const partnerApi = api(stack.baseUrl, partner.liveKey);
    const phone = recipientPhone();
    down = true;
    let created: { id: string; [key: string]: unknown };
    try {
      created = await book(stack.baseUrl, partner.liveKey, { verification_method: 'otp', recipient_phone: phone });
      await eventually(async () => refusedTo.includes(phone), 10_000, 'a first try at the text');

      // Neither the debit nor the search for a rider waits for the text.
      await eventually(async () => (await partnerApi.get(`/partner/deliveries/${created.id}`)).body.payment_status === 'paid', 10_000, 'paid while the SMS API is down');
      await eventually(async () => (await riderApi.get('/rider/offers')).body.some((o: { delivery_id: string }) => o.delivery_id === created.id), 10_000, 'offered while the SMS API is down');
      expect(textsTo(phone)).toEqual([]);
    } finally {
      down = false;
    }

    const [text] = await eventually(async () => (textsTo(phone).length ? textsTo(phone) : undefined), 20_000, 'the code texted once the SMS API is back');
    const code = /(\d{6})$/.exec(text!.body.message)![1]!;
    expect((await riderApi.post(`/rider/deliveries/${created.id}/accept`)).status).toBe(200);
    expect((await riderApi.post(`/rider/deliveries/${created.id}/pickup`)).status).toBe(200);
    expect((await riderApi.post(`/rider/deliveries/${created.id}/depart`)).status).toBe(200);
    expect((await riderApi.post(`/rider/deliveries/${created.id}/deliver`, { otp: code })).status).toBe(200);
    expect(textsTo(phone)).toHaveLength(1);
  }, 60_000);

  it('gives up texting the code of a delivery cancelled while the SMS API is down, and the delivery workflow ends', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const phone = recipientPhone();
    down = true;
    try {
      const created = await book(stack.baseUrl, partner.liveKey, { verification_method: 'otp', recipient_phone: phone });
      await eventually(async () => refusedTo.includes(phone), 10_000, 'a first try at the text');
      expect((await api(stack.baseUrl, partner.liveKey).post(`/partner/deliveries/${created.id}/cancel`)).status).toBe(200);

      const result = await stack.temporal.workflow.getHandle(deliveryWorkflowId(created.id)).result();
      expect(result).toMatchObject({ status: 'cancelled', paymentStatus: 'paid' });
    } finally {
      down = false;
    }
    expect(textsTo(phone)).toEqual([]);
  }, 60_000);

  it('never texts the recipient of a test-mode delivery: its code stays in the outbox while the job is active', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const phone = recipientPhone();
    // Booked for later: the robo rider would finish the job, and its code go, within a second.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const created = await book(stack.baseUrl, partner.testKey, { verification_method: 'otp', recipient_phone: phone, scheduled_at: later });

    const [kept] = await eventually(async () => {
      const bodies = await outboxTo(phone);
      return bodies.length ? bodies : undefined;
    }, 15_000, 'the code in the outbox');
    expect(kept).toMatch(/\b\d{6}$/);
    expect(textsTo(phone)).toEqual([]);
    await api(stack.baseUrl, partner.testKey).post(`/partner/deliveries/${created.id}/cancel`);
  });

  it('fails a send the API never answers with an error that carries neither the API key nor the message', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const sms = new HttpSms({ url: `http://127.0.0.1:${port}/send`, apiKey: API_KEY, sender: 'DLVRY', timeoutMs: 1000 });

    const error = (await sms.send('+233241234567', 'Your code is 493817').catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('SMS API did not answer (ECONNREFUSED)');
    // What a log line or Temporal's failure record would hold of it.
    const written = JSON.stringify({ error, cause: (error as { cause?: unknown }).cause, stack: error.stack });
    expect(written).not.toContain(API_KEY);
    expect(written).not.toContain('493817');
  });
});

describe('SMS settings', () => {
  it('refuse SMS_PROVIDER=http without a URL or an API key, naming the variable', () => {
    const base = { DATABASE_URL: 'postgres://localhost/x', SMS_PROVIDER: 'http' };
    expect(() => loadSettings({ ...base, SMS_API_KEY: API_KEY })).toThrow(/^SMS_URL: required/);
    expect(() => loadSettings({ ...base, SMS_URL: smsUrl })).toThrow(/^SMS_API_KEY: required/);
    expect(loadSettings({ DATABASE_URL: 'postgres://localhost/x' }).smsProvider).toBe('outbox');
  });
});
