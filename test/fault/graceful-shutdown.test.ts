import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { freePort } from '../helpers/free-port';
import { webhookAttemptsOf } from '../helpers/db-webhooks';
import { spawnApi, spawnWorker, waitForHttp, WebhookReceiver, type ChildHandle } from './support';

const children: ChildHandle[] = [];
let photon: Server | undefined;
let stack: TestStack | undefined;
const receiver = new WebhookReceiver();
afterAll(async () => {
  for (const child of children) await child.stop('SIGKILL');
  photon?.closeAllConnections();
  await new Promise((resolve) => (photon ? photon.close(resolve) : resolve(undefined)));
  await receiver.down();
  await stack?.close();
});

/**
 * A place-search server that takes its time, so a request is still running when the API is told
 * to stop. `reached` settles once the API's request has arrived.
 */
async function slowPhoton(delayMs: number): Promise<{ url: string; reached: Promise<void> }> {
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  photon = createServer((_req, res) => {
    arrived();
    setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"type":"FeatureCollection","features":[]}'), delayMs);
  });
  await new Promise<void>((resolve) => photon!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(photon.address() as AddressInfo).port}`, reached };
}

describe('graceful shutdown', () => {
  it('lets the API finish a request in flight on SIGTERM, refuses new connections, then exits 0', async () => {
    const port = await freePort();
    const photonServer = await slowPhoton(2_000);
    const apiProcess = spawnApi(port, { PLACES_PROVIDER: 'photon', PHOTON_URL: photonServer.url });
    children.push(apiProcess);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitForHttp(`${baseUrl}/healthz`);

    const started = Date.now();
    const slow = api(baseUrl).get('/places/autocomplete?q=Makola');
    await photonServer.reached;
    apiProcess.child.kill('SIGTERM');
    // While the request is still in flight (answered 2 s after it reached the place search, inside
    // the API's 3 s limit for it), a new connection is refused once the signal has been handled.
    const late = await eventually(
      () => fetch(`${baseUrl}/healthz`).then(() => false, () => 'refused' as const),
      1_500,
      'new connections to be refused',
    ).catch(() => 'accepted');
    const answer = await slow;
    const answeredMs = Date.now() - started;
    const exit = await apiProcess.exited;
    const exitedMs = Date.now() - started;
    process.stdout.write(`shutdown: API request in flight answered ${answer.status} at ${answeredMs} ms; process exited ${exit.code} at ${exitedMs} ms\n`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([]);
    expect(late).toBe('refused');
    expect(exit.code).toBe(0);
    // Well before the 15 s backstop: nothing but the answered request held it.
    expect(exitedMs - answeredMs).toBeLessThan(5_000);
  }, 60_000);

  it('lets the worker finish a webhook call in flight on SIGTERM and exit 0; a new worker carries the delivery on', async () => {
    stack = await startTestStack({ withoutWorker: true, env: { ROBO_RIDER_STEP_SECONDS: '0.2' } });
    await receiver.up();
    receiver.delayMs = 1_200;
    // A receiver that answers in 1.2 s is well inside this worker's callback time limit.
    const worker = spawnWorker(stack.settings.temporalTaskQueue, { WEBHOOK_TIMEOUT_SECONDS: '10' });
    children.push(worker);
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.testKey);
    const client = api(stack.baseUrl, partner.testKey);
    expect((await client.put('/partner/webhook', { webhook_url: receiver.url })).status).toBe(200);
    const { id } = await book(stack.baseUrl, partner.testKey);

    await eventually(async () => receiver.inFlight > 0, 30_000, 'a callback in flight');
    worker.child.kill('SIGTERM');
    const exit = await worker.exited;
    expect(exit.code).toBe(0);
    // The callback that was under way was answered and recorded before the worker left.
    expect(receiver.received.length).toBeGreaterThanOrEqual(1);
    const [first] = await webhookAttemptsOf(stack.orm, id);
    expect(first).toMatchObject({ status_code: 200, error: null });

    receiver.delayMs = 0;
    children.push(spawnWorker(stack.settings.temporalTaskQueue));
    await eventually(async () => {
      const res = await client.get(`/partner/deliveries/${id}`);
      return res.body.status === 'delivered' && res.body.payment_status === 'paid';
    }, 60_000, 'delivered by the next worker');
    await eventually(async () => receiver.distinctEventIds().size === 4, 20_000, 'every webhook');
  }, 120_000);
});
