import { randomUUID } from 'node:crypto';
import { makePartner, partnerClient } from '../helpers/partners';
import { PHP, PYTHON, PYTHON_ENV, postCallback, realCallback, runProgram, startProgramServer, tampered } from '../helpers/client-programs';
import { startTestStack, type TestStack } from '../helpers/stack';

/**
 * The PHP client (clients/php) and the Python client (clients/python) as a partner's server runs
 * each, against the running service: real HTTP with php-cli and python3, no stand-in for the API.
 */
interface Language {
  interpreter: string;
  env: Record<string, string>;
  journey: string;
  bookingExample: string;
  /** The arguments that start the receiver example on `port`. */
  receiver: (port: number) => string[];
}

const LANGUAGES: [string, Language][] = [
  [
    'PHP',
    {
      interpreter: PHP,
      env: {},
      journey: 'test/clients/journey.php',
      bookingExample: 'clients/php/examples/book.php',
      receiver: (port) => ['-S', `127.0.0.1:${port}`, 'clients/php/examples/webhook.php'],
    },
  ],
  [
    'Python',
    {
      interpreter: PYTHON,
      env: PYTHON_ENV,
      journey: 'test/clients/journey.py',
      bookingExample: 'clients/python/examples/book.py',
      receiver: () => ['clients/python/examples/webhook.py'],
    },
  ],
];

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env: { DISPATCH_TIMEOUT_SECONDS: '300' } });
});
afterAll(async () => {
  await stack?.close();
});

describe.each(LANGUAGES)('the %s client', (_name, language) => {
  const run = (program: string, env: Record<string, string>) => runProgram(language.interpreter, [program], { ...language.env, ...env });

  it('quotes, registers an account, books, reads, lists, cancels and reads a proof', async () => {
    const partner = await makePartner(stack.orm);
    const ran = await run(language.journey, { DELIVERY_BASE_URL: stack.baseUrl, DELIVERY_API_KEY: partner.testKey, RUN_ID: randomUUID() });
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    const seen = JSON.parse(ran.stdout);

    expect(seen.account).toMatchObject({ provider: 'network_a', account_name: 'Ama Serwaa', is_default: true });
    expect(seen.booked).toMatchObject({ status: 'pending', total_fare: seen.quote.total_fare });
    expect(seen.repeated.id).toBe(seen.booked.id);
    expect(seen.read).toMatchObject({ id: seen.booked.id, recipient_name: 'Ama Serwaa Mensah' });
    expect(seen.listed).toContain(seen.booked.id);
    expect(seen.cancelled).toMatchObject({ id: seen.booked.id, status: 'cancelled' });
    expect(seen.refused).toMatchObject({ status: 400, code: 'bad_request', details: { status: 'in_transit' } });
    expect(seen.refused.request_id).toEqual(expect.any(String));
    expect(seen.delivered.status).toBe('delivered');
    expect(seen.proof).toEqual([expect.objectContaining({ stop_index: null, method: 'none' })]);
    expect(seen.tracking.status).toBe('delivered');
    // What the client did is what the service holds.
    expect((await partnerClient(stack.baseUrl, partner.testKey).deliveries.get(seen.booked.id)).status).toBe('cancelled');
  }, 60_000);

  it('runs the booking example as docs/clients.md shows it', async () => {
    const partner = await makePartner(stack.orm);
    await partnerClient(stack.baseUrl, partner.testKey).paymentMethods.create({ provider: 'network_a', phone: '+233241230001', account_name: 'Shop' });
    const ran = await run(language.bookingExample, { DELIVERY_BASE_URL: stack.baseUrl, DELIVERY_API_KEY: partner.testKey });
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ran.stdout).toMatch(/^DLV-[0-9A-F]{8} pending [0-9.]+ GHS http:\/\/\S+\/track\?id=[0-9a-f-]{36}\n$/);
  }, 30_000);

  it('verifies the service’s real webhook with the receiver example, and refuses one byte changed', async () => {
    const callback = await realCallback(stack);
    const receiver = await startProgramServer(language.interpreter, language.receiver, { ...language.env, DELIVERY_WEBHOOK_SECRET: callback.secret });
    try {
      expect(await postCallback(receiver.url, callback.raw, callback.signature)).toBe(204);
      expect(await postCallback(receiver.url, tampered(callback.raw), callback.signature)).toBe(401);
      expect(await postCallback(receiver.url, callback.raw, callback.signature.replace(/.$/, (c) => (c === '0' ? '1' : '0')))).toBe(401);
      expect(receiver.output()).toContain(`delivery.cancelled ${callback.deliveryId} `);
    } finally {
      await receiver.stop();
    }
  }, 30_000);
});
