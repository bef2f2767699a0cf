import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../config/logger';
import { installTemporalLogger } from '../../workers/temporal-logger';
import { book, registerAccount, SANDBOX, stopBody } from '../helpers/bookings';
import { freePort } from '../helpers/free-port';
import { api, eventually } from '../helpers/http';
import { makePartner } from '../helpers/partners';
import { riderApp } from '../helpers/riders';
import { startTestStack, type TestStack } from '../helpers/stack';
import { reverseOnLedger } from '../helpers/db-payments';
import { requestRecheck } from '../../db/debits';
import { debitReconciliationWorkflow } from '../../workflows/debit-reconciliation';

let stack: TestStack;
let receiver: Server;
let receiverUrl: string;
let workerMetricsUrl: string;
const METRICS_TOKEN = 'metrics-token-for-the-scraper-0123456789';

/** A partner's callback endpoint: `/flaky` refuses the first try of each event, `/down` refuses every one. */
async function startReceiver(): Promise<Server> {
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const eventId = String(req.headers['x-service-event-id']);
      const firstTry = !seen.has(eventId);
      seen.add(eventId);
      res.statusCode = req.url === '/down' || firstTry ? 500 : 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** The value of one sample in Prometheus text, matching the given labels (others may be present). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) total = (total ?? 0) + Number(match[3]);
  }
  return total;
}

beforeAll(async () => {
  // The worker's Prometheus endpoint, installed the way workers/main.ts does, before the worker starts.
  const port = await freePort();
  installTemporalLogger(createLogger({ level: 'error', json: false, service: 'test' }), 'WARN', { metricsPort: port, metricsHost: '127.0.0.1' });
  workerMetricsUrl = `http://127.0.0.1:${port}/metrics`;
  receiver = await startReceiver();
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // Quick retries, so a callback that is never accepted runs out of attempts within the test.
  stack = await startTestStack({ env: { WEBHOOK_RETRY_INITIAL_SECONDS: '0.05', WEBHOOK_RETRY_COEFFICIENT: '1.5', METRICS_TOKEN } });
});

afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Scrapes as Prometheus does: the API's endpoint with its bearer token, the worker's (on the internal network) without. */
async function scrape(url: string): Promise<{ contentType: string; text: string }> {
  const response = await fetch(url, url.startsWith(stack.baseUrl) ? { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } } : {});
  expect(response.status).toBe(200);
  return { contentType: response.headers.get('content-type') ?? '', text: await response.text() };
}

describe('GET /metrics on the API', () => {
  it('counts and times requests by route template and status, never by raw path', async () => {
    const partner = await makePartner(stack.orm);
    const unknownId = randomUUID();
    expect((await api(stack.baseUrl, partner.testKey).get(`/partner/deliveries/${unknownId}`)).status).toBe(404);
    expect((await api(stack.baseUrl).get(`/partner/deliveries/${unknownId}`)).status).toBe(401);
    expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${stack.baseUrl}/no/such/${unknownId}`)).status).toBe(404);

    const { contentType, text } = await scrape(`${stack.baseUrl}/metrics`);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const byRoute = (route: string, status: string) => sample(text, 'http_requests_total', { method: 'GET', route, status });
    expect(byRoute('/api/v1/partner/deliveries/{id}', '404')).toBe(1);
    expect(byRoute('/api/v1/partner/deliveries/{id}', '401')).toBe(1);
    expect(byRoute('/healthz', '200')).toBe(1);
    expect(byRoute('unmatched', '404')).toBe(1);
    const timed = { method: 'GET', route: '/api/v1/partner/deliveries/{id}', status: '404' };
    expect(sample(text, 'http_request_duration_seconds_count', timed)).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_bucket', { ...timed, le: '+Inf' })).toBe(1);
    expect(text).not.toContain(unknownId);
    // The Node.js runtime comes along: event-loop lag is the first sign of an overloaded API.
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).toEqual(expect.any(Number));
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { Authorization: 'Bearer not-the-metrics-token' }],
    ['a partner key instead', { Authorization: 'Bearer sk_test_whatever' }],
  ])('answers 401 in the error envelope with %s, and shows no metric', async (_what, headers: Record<string, string>) => {
    const response = await fetch(`${stack.baseUrl}/metrics`, { headers });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    const body = await response.text();
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'unauthorized', message: expect.stringContaining('METRICS_TOKEN') } });
    expect(body).not.toContain('http_requests_total');
  });
});

describe('business metrics', () => {
  it('counts bookings on the API, and transitions, callbacks and debits on the worker beside the SDK metrics', async () => {
    const steady = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, steady.liveKey);
    await api(stack.baseUrl, steady.liveKey).put('/partner/webhook', { webhook_url: `${receiverUrl}/flaky` });
    const broke = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, broke.liveKey, SANDBOX.declines);
    await api(stack.baseUrl, broke.liveKey).put('/partner/webhook', { webhook_url: `${receiverUrl}/down` });

    const paid = await book(stack.baseUrl, steady.liveKey, { additional_stops: [stopBody()] });
    const declined = await book(stack.baseUrl, broke.liveKey);
    for (const [key, id, payment, stops] of [
      [steady.liveKey, paid.id, 'paid', 1],
      [broke.liveKey, declined.id, 'failed', 0],
    ] as const) {
      const rider = await riderApp(stack.baseUrl, stack.orm);
      await rider.take(id);
      await rider.pickup(id);
      await rider.depart(id);
      for (let index = 0; index < stops; index++) await rider.completeStop(id, index);
      expect((await rider.deliver(id)).status).toBe(200);
      const settled = async () => (await api(stack.baseUrl, key).get(`/partner/deliveries/${id}`)).body.payment_status === payment;
      await eventually(settled, 10_000, `${id} ${payment}`);
    }

    const apiText = (await scrape(`${stack.baseUrl}/metrics`)).text;
    expect(sample(apiText, 'deliveries_booked_total', { mode: 'live' })).toBe(2);

    // Both workflows complete once every callback is settled: the `/down` partner's four events run
    // out of attempts, the `/flaky` partner's succeed on their second.
    const worker = await eventually(async () => {
      const { text } = await scrape(workerMetricsUrl);
      return sample(text, 'temporal_workflow_completed', { workflow_type: 'deliveryWorkflow' }) === 2 ? text : undefined;
    }, 30_000, 'both delivery workflows completed');
    expect(sample(worker, 'webhook_failures_total')).toBe(4);
    expect(sample(worker, 'delivery_transitions_total', { status: 'delivered' })).toBe(2);
    expect(sample(worker, 'delivery_transitions_total', { status: 'accepted', taskQueue: stack.settings.temporalTaskQueue })).toBe(2);
    // Each status change's ETA and write are timed: a rider's step waits on both.
    const stageCount = (stage: string) => sample(worker, 'delivery_transition_stage_latency_count', { stage });
    expect({ eta: stageCount('eta'), write: stageCount('write') }).toEqual({ eta: 8, write: 8 });
    expect(sample(worker, 'delivery_transition_stage_latency_sum', { stage: 'write' })).toBeGreaterThan(0);
    expect(sample(worker, 'debits_total', { outcome: 'paid' })).toBe(1);
    expect(sample(worker, 'debits_total', { outcome: 'failed' })).toBe(1);
    expect(sample(worker, 'webhook_attempts_total', { outcome: 'delivered' })).toBe(4);
    expect(sample(worker, 'webhook_attempts_total', { outcome: 'failed' })).toBe(4 + 4 * 6);
    // The Temporal SDK's own metrics share the endpoint.
    expect(sample(worker, 'temporal_activity_execution_failed', { activity_type: 'sendWebhook' })).toBeGreaterThan(0);
  }, 60_000);

  it('counts a debit settled after its delivery ended apart, as no webhook carries it', async () => {
    const partner = await makePartner(stack.orm);
    // Every try of this number times out: the outcome comes after the five tries, long after a cancel.
    await registerAccount(stack.baseUrl, partner.liveKey, SANDBOX.outage);
    const before = sample((await scrape(workerMetricsUrl)).text, 'debits_total', { outcome: 'failed', after_final_webhook: 'true' }) ?? 0;
    const booked = await book(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    expect((await client.post(`/partner/deliveries/${booked.id}/cancel`)).body).toMatchObject({ status: 'cancelled', payment_status: 'pending' });
    await stack.temporal.workflow.getHandle(`delivery-${booked.id}`).result();

    expect((await client.get(`/partner/deliveries/${booked.id}`)).body.payment_status).toBe('failed');
    const { text } = await scrape(workerMetricsUrl);
    expect((sample(text, 'debits_total', { outcome: 'failed', after_final_webhook: 'true' }) ?? 0) - before).toBe(1);
  }, 60_000);

  it('counts a debit record corrected to the gateway’s word on the worker', async () => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const booked = await book(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    await eventually(async () => (await client.get(`/partner/deliveries/${booked.id}`)).body.payment_status === 'paid', 10_000, 'paid');
    await client.post(`/partner/deliveries/${booked.id}/cancel`);
    await stack.temporal.workflow.getHandle(`delivery-${booked.id}`).result();

    // The sandbox network reverses the charge, and a report of it asks for a recheck.
    await reverseOnLedger(stack.orm, booked.id, 'Reversed');
    await requestRecheck(stack.orm.em.fork(), booked.id);
    await stack.temporal.workflow.execute(debitReconciliationWorkflow, {
      taskQueue: stack.settings.temporalTaskQueue,
      workflowId: `debit-reconciliation-${randomUUID()}`,
      args: [{ pendingAfterSeconds: 3600, batch: 100 }],
    });

    expect((await client.get(`/partner/deliveries/${booked.id}`)).body.payment_status).toBe('failed');
    const { text } = await scrape(workerMetricsUrl);
    // The delivery had ended: no webhook carries the change, and the label says so.
    expect(sample(text, 'debit_corrections_total', { from: 'paid', to: 'failed', after_final_webhook: 'true' })).toBe(1);
  });
});
