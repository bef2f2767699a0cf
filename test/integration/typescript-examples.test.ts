import { makePartner, partnerClient } from '../helpers/partners';
import { postCallback, realCallback, runProgram, startProgramServer, tampered } from '../helpers/client-programs';
import { ourProgram } from '../helpers/child-process';
import { startTestStack, type TestStack } from '../helpers/stack';

/**
 * The TypeScript client's examples (clients/typescript/examples), as docs/clients.md and /docs show
 * them, run against the running service as their first line says. The PHP and Python ones are run
 * by php-python-clients.test.ts.
 */

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env: { DISPATCH_TIMEOUT_SECONDS: '300' } });
});
afterAll(async () => {
  await stack?.close();
});

describe('the TypeScript client’s examples', () => {
  it('book at the quoted fare', async () => {
    const partner = await makePartner(stack.orm);
    await partnerClient(stack.baseUrl, partner.testKey).paymentMethods.create({ provider: 'network_a', phone: '+233241230001', account_name: 'Shop' });
    const { command, args } = ourProgram('clients/typescript/examples/book.ts');
    const run = await runProgram(command, args, { DELIVERY_BASE_URL: stack.baseUrl, DELIVERY_API_KEY: partner.testKey });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^DLV-[0-9A-F]{8} pending [0-9.]+ GHS http:\/\/\S+\/track\?id=[0-9a-f-]{36}\n$/);
  }, 30_000);

  it('verify the service’s real webhook, and refuse one byte changed', async () => {
    const callback = await realCallback(stack);
    const { command, args } = ourProgram('clients/typescript/examples/webhook.ts');
    const receiver = await startProgramServer(command, () => args, { DELIVERY_WEBHOOK_SECRET: callback.secret });
    try {
      expect(await postCallback(receiver.url, callback.raw, callback.signature)).toBe(204);
      expect(await postCallback(receiver.url, tampered(callback.raw), callback.signature)).toBe(401);
      expect(receiver.output()).toContain(`delivery.cancelled ${callback.deliveryId} `);
    } finally {
      await receiver.stop();
    }
  }, 30_000);
});
