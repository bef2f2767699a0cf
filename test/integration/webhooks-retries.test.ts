import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makePartner } from '../helpers/partners';
import { api, eventually } from '../helpers/http';
import { book, registerAccount } from '../helpers/bookings';
import { startTestReceiver, type TestReceiver } from '../helpers/webhook-test-receiver';
import { hasValidSignature } from '../helpers/webhook-receiver';
import { deliveryWorkflowId } from '../../domain/reference';
import type { WebhookDelivery } from '../../api/openapi/schemas';

// Failed attempts are what this file is about; the SDK would log each one with a stack trace.
try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Installed already by an earlier test file in this jest worker.
}

let stack: TestStack;
const receivers: TestReceiver[] = [];
beforeAll(async () => {
  // FAST_TIMINGS: retries after 0.2 s, 0.4 s, ...; a callback answer slower than 2 s has failed.
  stack = await startTestStack();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const finished = (deliveryId: string) => stack.temporal.workflow.getHandle(deliveryWorkflowId(deliveryId)).result();

/** A live partner with a sandbox account and a receiver subscribed to its callbacks. */
async function subscribedPartner() {
  const partner = await makePartner(stack.orm);
  await registerAccount(stack.baseUrl, partner.liveKey);
  const receiver = await startTestReceiver();
  receivers.push(receiver);
  await receiver.subscribe(stack.baseUrl, partner.liveKey);
  return { ...partner, receiver, client: api(stack.baseUrl, partner.liveKey) };
}

/** A live booking cancelled at once: exactly one callback, `delivery.cancelled`. */
async function cancelledDelivery(key: string): Promise<string> {
  const created = await book(stack.baseUrl, key);
  const res = await api(stack.baseUrl, key).post(`/partner/deliveries/${created.id}/cancel`);
  if (res.status !== 200) throw new Error(`cancel: ${res.status}`);
  return created.id;
}

async function loggedCallback(client: ReturnType<typeof api>, deliveryId: string): Promise<WebhookDelivery> {
  const log = (await client.get<WebhookDelivery[]>('/partner/webhook/deliveries?limit=100')).body;
  const entry = log.find((e) => e.delivery_id === deliveryId);
  if (!entry) throw new Error(`no callback logged for ${deliveryId}`);
  return entry;
}

describe('retrying a callback', () => {
  it('sends identical bytes with the same event id to a receiver that fails twice, until it answers 2xx', async () => {
    const { receiver, client, liveKey } = await subscribedPartner();
    receiver.onCallback = async (_callback, tries) => {
      if (tries <= 2) throw new Error('receiver down');
    };
    const deliveryId = await cancelledDelivery(liveKey);
    await finished(deliveryId);

    const arrivals = receiver.arrivalsFor(deliveryId);
    expect(arrivals.map((a) => a.answeredWith)).toEqual([500, 500, 204]);
    for (const arrival of arrivals) {
      expect(arrival.raw.equals(arrivals[0]!.raw)).toBe(true);
      expect(arrival.headers['x-service-event-id']).toBe(arrivals[0]!.headers['x-service-event-id']);
      expect(arrival.headers['x-service-signature']).toBe(arrivals[0]!.headers['x-service-signature']);
      expect(arrival.validSignature).toBe(true);
    }
    expect(receiver.handled).toHaveLength(1);

    const logged = await loggedCallback(client, deliveryId);
    expect(logged.id).toBe(arrivals[0]!.headers['x-service-event-id']);
    expect(logged.state).toBe('delivered');
    expect(logged.attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [3, 204, null],
      [2, 500, 'HTTP 500'],
      [1, 500, 'HTTP 500'],
    ]);
    expect(logged.attempts[0]!.next_retry_at).toBeNull();
    for (const failed of logged.attempts.slice(1)) {
      expect(Date.parse(failed.next_retry_at!)).toBeGreaterThan(Date.parse(failed.created_at));
      expect(failed.latency_ms).toEqual(expect.any(Number));
    }
  });

  it('gives up after six attempts in all (the first and five retries), the same bytes each time', async () => {
    const { receiver, client, liveKey } = await subscribedPartner();
    receiver.onCallback = async () => {
      throw new Error('receiver down for good');
    };
    const deliveryId = await cancelledDelivery(liveKey);
    await finished(deliveryId);

    const arrivals = receiver.arrivalsFor(deliveryId);
    expect(arrivals.map((a) => a.answeredWith)).toEqual(Array(6).fill(500));
    expect(arrivals.map((a) => a.headers['x-service-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
    for (const arrival of arrivals) {
      expect(arrival.raw.equals(arrivals[0]!.raw)).toBe(true);
      expect(arrival.headers['x-service-event-id']).toBe(arrivals[0]!.headers['x-service-event-id']);
      expect(arrival.validSignature).toBe(true);
    }
    // Exponential backoff: the n-th retry waits initial × coefficient^(n-1). The server's timers
    // are coarse under a second, so only the longer waits are held to their figure.
    const waits = arrivals.slice(1).map((a, i) => a.arrivedAt - arrivals[i]!.arrivedAt);
    const { webhookRetryInitialSeconds: initial, webhookRetryCoefficient: coefficient } = stack.settings;
    expect(waits[3]).toBeGreaterThanOrEqual(initial * coefficient ** 3 * 1000 * 0.9);
    expect(waits[4]).toBeGreaterThanOrEqual(initial * coefficient ** 4 * 1000 * 0.9);

    const logged = await loggedCallback(client, deliveryId);
    expect(logged.state).toBe('failed');
    expect(logged.attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual(
      [6, 5, 4, 3, 2, 1].map((n) => [n, 500, 'HTTP 500']),
    );
    expect(logged.attempts[0]!.next_retry_at).toBeNull();
    expect(logged.attempts.slice(1).every((a) => a.next_retry_at !== null)).toBe(true);
    expect(receiver.handled).toHaveLength(0);
  });

  it('retries a receiver that answers later than WEBHOOK_TIMEOUT_SECONDS', async () => {
    const { receiver, client, liveKey } = await subscribedPartner();
    receiver.onCallback = async (_callback, tries) => {
      if (tries === 1) await sleep(stack.settings.webhookTimeoutSeconds * 1000 + 1000);
    };
    const deliveryId = await cancelledDelivery(liveKey);
    await finished(deliveryId);

    const arrivals = receiver.arrivalsFor(deliveryId);
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]!.raw.equals(arrivals[0]!.raw)).toBe(true);
    expect(arrivals[1]!.arrivedAt - arrivals[0]!.arrivedAt).toBeGreaterThanOrEqual(stack.settings.webhookTimeoutSeconds * 1000);
    const logged = await loggedCallback(client, deliveryId);
    expect(logged.state).toBe('delivered');
    expect(logged.attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [2, 204, null],
      [1, null, 'Timed out'],
    ]);
  });

  // Any 2xx is success and anything else a failed attempt (contract: "a non-2xx response … is retried").
  it.each([
    ['a redirect (its Location never called)', 307, 204],
    ['a 4xx', 410, 202],
  ])('counts %s as a failed attempt and tries again until any 2xx', async (_what, first, then) => {
    const partner = await makePartner(stack.orm);
    await registerAccount(stack.baseUrl, partner.liveKey);
    const client = api(stack.baseUrl, partner.liveKey);
    // A receiver whose first answer is `first` (a redirect sends the caller elsewhere), then `then`.
    const paths: string[] = [];
    const receiver = createServer((req, res) => {
      paths.push(req.url ?? '');
      req.resume();
      req.on('end', () => {
        if (req.url === '/hooks' && paths.filter((p) => p === '/hooks').length === 1) {
          res.writeHead(first, { Location: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/elsewhere` }).end();
        } else res.writeHead(then).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      expect((await client.put('/partner/webhook', { webhook_url: url })).status).toBe(200);
      const deliveryId = await cancelledDelivery(partner.liveKey);
      await finished(deliveryId);

      expect(paths).toEqual(['/hooks', '/hooks']);
      const logged = await loggedCallback(client, deliveryId);
      expect(logged.state).toBe('delivered');
      expect(logged.attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
        [2, then, null],
        [1, first, `HTTP ${first}`],
      ]);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('signs a retry with the secret set after the first attempt', async () => {
    const { receiver, client, liveKey } = await subscribedPartner();
    const firstSecret = receiver.secret;
    let secondSecret = '';
    receiver.onCallback = async (_callback, tries) => {
      if (tries === 1) {
        // The partner rotates its secret while the first attempt is in hand, then fails it.
        secondSecret = (await client.put('/partner/webhook', { webhook_url: receiver.url })).body.webhook_secret;
        receiver.secret = secondSecret;
        throw new Error('rotating');
      }
    };
    const deliveryId = await cancelledDelivery(liveKey);
    await finished(deliveryId);

    const [first, retry] = receiver.arrivalsFor(deliveryId);
    expect(secondSecret).not.toBe(firstSecret);
    expect(retry!.raw.equals(first!.raw)).toBe(true);
    expect(hasValidSignature(first!.raw, first!.headers['x-service-signature'], firstSecret)).toBe(true);
    expect(hasValidSignature(retry!.raw, retry!.headers['x-service-signature'], secondSecret)).toBe(true);
    expect(hasValidSignature(retry!.raw, retry!.headers['x-service-signature'], firstSecret)).toBe(false);
    expect(retry!.answeredWith).toBe(204);
    expect((await loggedCallback(client, deliveryId)).state).toBe('delivered');
  });
});

describe('stopping callbacks', () => {
  it('records the event as skipped and calls nobody once the URL is set to null', async () => {
    const { receiver, client, liveKey } = await subscribedPartner();
    expect((await client.put('/partner/webhook', { webhook_url: null })).body).toEqual({ webhook_url: null, webhook_secret: null });
    const deliveryId = await cancelledDelivery(liveKey);
    await finished(deliveryId);

    expect(receiver.arrivals).toHaveLength(0);
    const logged = await loggedCallback(client, deliveryId);
    expect([logged.event, logged.state, logged.attempts]).toEqual(['delivery.cancelled', 'skipped', []]);
  });

  it('stops retrying an event when the URL is cleared between attempts', async () => {
    const { receiver, client, liveKey } = await subscribedPartner();
    receiver.onCallback = async () => {
      await client.put('/partner/webhook', { webhook_url: null });
      throw new Error('shutting down');
    };
    const deliveryId = await cancelledDelivery(liveKey);
    await finished(deliveryId);

    expect(receiver.arrivalsFor(deliveryId)).toHaveLength(1);
    const logged = await loggedCallback(client, deliveryId);
    expect(logged.state).toBe('skipped');
    expect(logged.attempts.map((a) => [a.attempt, a.status_code])).toEqual([[1, 500]]);
  });
});

describe('callback log and redelivery', () => {
  it('lists callbacks newest first, each with its attempts newest first, paged by limit and offset', async () => {
    const { receiver, client, liveKey } = await subscribedPartner();
    // The deliveries run one after another: the second request to arrive is the second one's first attempt.
    receiver.onCallback = async () => {
      if (receiver.arrivals.length === 2) throw new Error('busy');
    };
    const deliveries: string[] = [];
    for (let i = 0; i < 4; i++) {
      deliveries.push(await cancelledDelivery(liveKey));
      await finished(deliveries[i]!);
    }

    const all = (await client.get<WebhookDelivery[]>('/partner/webhook/deliveries')).body;
    expect(all.map((e) => e.delivery_id)).toEqual([...deliveries].reverse());
    const times = all.map((e) => Date.parse(e.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(all.every((e) => e.state === 'delivered')).toBe(true);
    expect(all[2]!.attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [2, 204],
      [1, 500],
    ]);

    const first = (await client.get<WebhookDelivery[]>('/partner/webhook/deliveries?limit=3&offset=0')).body;
    const rest = (await client.get<WebhookDelivery[]>('/partner/webhook/deliveries?limit=3&offset=3')).body;
    expect(first.map((e) => e.id)).toEqual(all.slice(0, 3).map((e) => e.id));
    expect(rest.map((e) => e.id)).toEqual(all.slice(3).map((e) => e.id));
    expect((await client.get('/partner/webhook/deliveries?limit=0')).status).toBe(400);
    expect((await client.get('/partner/webhook/deliveries?limit=101')).status).toBe(400);
    expect((await client.get('/partner/webhook/deliveries?offset=-1')).status).toBe(400);
  });

  it('redelivers the same bytes with the same event id, signed with the current secret', async () => {
    const { receiver, client, liveKey } = await subscribedPartner();
    const deliveryId = await cancelledDelivery(liveKey);
    await finished(deliveryId);
    const original = await loggedCallback(client, deliveryId);
    expect(original.state).toBe('delivered');

    const newSecret = await receiver.subscribe(stack.baseUrl, liveKey);
    const queued = await client.post<WebhookDelivery>(`/partner/webhook/deliveries/${original.id}/redeliver`);
    expect(queued.status).toBe(202);
    expect(queued.body.id).toBe(original.id);
    expect(queued.body.state).toBe('pending');

    const [first, again] = await eventually(async () => {
      const arrivals = receiver.arrivalsFor(deliveryId);
      return arrivals.length === 2 && arrivals[1]!.answeredWith ? arrivals : undefined;
    }, 10_000, 'the redelivery');
    expect(again!.raw.equals(first!.raw)).toBe(true);
    expect(again!.headers['x-service-event-id']).toBe(original.id);
    expect(hasValidSignature(again!.raw, again!.headers['x-service-signature'], newSecret)).toBe(true);
    expect(again!.headers['x-service-signature']).not.toBe(first!.headers['x-service-signature']);
    // The receiver's de-duplication keeps the partner's code from seeing it twice.
    expect(receiver.handled).toHaveLength(1);

    const logged = await eventually(async () => {
      const entry = await loggedCallback(client, deliveryId);
      return entry.state === 'delivered' && entry.attempts.length === 2 ? entry : undefined;
    }, 10_000, 'the redelivery to be logged');
    expect(logged.attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [2, 204],
      [1, 204],
    ]);
  });

  it('numbers every try of an event apart, a redelivery sent while the first try awaits its answer included', async () => {
    const { receiver, client, liveKey } = await subscribedPartner();
    // The first try waits on the partner's server (within the time limit) while the redelivery goes out.
    receiver.onCallback = async (_callback, tries) => {
      if (tries === 1) await sleep(1000);
    };
    const deliveryId = await cancelledDelivery(liveKey);
    const [first] = await eventually(async () => {
      const arrivals = receiver.arrivalsFor(deliveryId);
      return arrivals.length === 1 ? arrivals : undefined;
    }, 10_000, 'the first try');
    const eventId = first!.headers['x-service-event-id'] as string;
    expect((await client.post(`/partner/webhook/deliveries/${eventId}/redeliver`)).status).toBe(202);

    const arrivals = await eventually(async () => {
      const all = receiver.arrivalsFor(deliveryId);
      return all.length === 2 && all.every((a) => a.answeredWith) ? all : undefined;
    }, 10_000, 'both tries answered');
    expect(arrivals.map((a) => a.headers['x-service-attempt']).sort()).toEqual(['1', '2']);
    const logged = await eventually(async () => {
      const entry = await loggedCallback(client, deliveryId);
      return entry.attempts.length === 2 ? entry : undefined;
    }, 10_000, 'both tries logged');
    expect(logged.attempts.map((a) => a.attempt).sort()).toEqual([1, 2]);
  });

  it('does not redeliver an unknown callback or another partner’s', async () => {
    const owner = await subscribedPartner();
    const stranger = await subscribedPartner();
    const deliveryId = await cancelledDelivery(owner.liveKey);
    await finished(deliveryId);
    const { id } = await loggedCallback(owner.client, deliveryId);
    expect((await stranger.client.post(`/partner/webhook/deliveries/${id}/redeliver`)).status).toBe(404);
    expect((await owner.client.post('/partner/webhook/deliveries/00000000-0000-4000-8000-000000000000/redeliver')).status).toBe(404);
    expect((await stranger.client.get<WebhookDelivery[]>('/partner/webhook/deliveries')).body).toEqual([]);
    // The owner's test key sees only test-mode callbacks, like a second account.
    const ownerTest = api(stack.baseUrl, owner.testKey);
    expect((await ownerTest.post(`/partner/webhook/deliveries/${id}/redeliver`)).status).toBe(404);
    expect((await ownerTest.get<WebhookDelivery[]>('/partner/webhook/deliveries')).body).toEqual([]);
  });
});
