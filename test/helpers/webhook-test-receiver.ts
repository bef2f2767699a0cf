import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { api } from './http';
import { deliveryCallbackReceiver, hasValidSignature, type DeliveryCallback } from './webhook-receiver';

/** One HTTP request as it reached the partner's server. */
export interface Arrival {
  /** When the request's headers arrived (ms since the epoch). */
  arrivedAt: number;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: DeliveryCallback;
  /** Checked with the secret the receiver held when the request arrived. */
  validSignature: boolean;
  /** The status the receiver answered with; undefined when the sender gave up first. */
  answeredWith?: number;
}

export interface TestReceiver {
  url: string;
  /** The secret the receiver checks against; set by `subscribe` or by the test after a rotation. */
  secret: string;
  /** Every request, in arrival order, duplicates included. */
  arrivals: Arrival[];
  /** What the partner's code was given: once per delivery and status. */
  handled: DeliveryCallback[];
  /**
   * The partner's own work for a callback (default: none). `tries` counts the requests that
   * carried this delivery and status so far, this one included. Throwing makes the receiver answer 500.
   */
  onCallback: (callback: DeliveryCallback, tries: number) => Promise<void>;
  /** PUTs this receiver's URL as the key's webhook and keeps the fresh secret. */
  subscribe(baseUrl: string, key: string): Promise<string>;
  /** Arrivals for one delivery. */
  arrivalsFor(deliveryId: string): Arrival[];
  close(): Promise<void>;
}

/**
 * A partner's server on a loopback port, running the documented receiver (webhook-receiver.ts)
 * and recording every request that reaches it, byte for byte.
 */
export async function startTestReceiver(): Promise<TestReceiver> {
  const receiver: TestReceiver = {
    url: '',
    secret: '',
    arrivals: [],
    handled: [],
    onCallback: async () => undefined,
    async subscribe(baseUrl, key) {
      const res = await api(baseUrl, key).put('/partner/webhook', { webhook_url: receiver.url });
      if (res.status !== 200) throw new Error(`subscribe: ${res.status} ${JSON.stringify(res.body)}`);
      receiver.secret = res.body.webhook_secret as string;
      return receiver.secret;
    },
    arrivalsFor: (deliveryId) => receiver.arrivals.filter((a) => a.body?.delivery_id === deliveryId),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const triesOf = (callback: DeliveryCallback) =>
    receiver.arrivals.filter((a) => a.body?.delivery_id === callback.delivery_id && a.body.status === callback.status).length;

  const documented = deliveryCallbackReceiver({
    secret: () => receiver.secret,
    handle: async (callback) => {
      await receiver.onCallback(callback, triesOf(callback));
      receiver.handled.push(callback);
    },
  });

  const server = createServer((req, res) => {
    const arrivedAt = Date.now();
    const chunks: Buffer[] = [];
    const arrival: Partial<Arrival> = { arrivedAt, headers: req.headers };
    // Listeners added before the documented receiver's run first: the arrival is on record
    // before the partner's code sees the callback.
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      arrival.raw = Buffer.concat(chunks);
      arrival.validSignature = hasValidSignature(arrival.raw, req.headers['x-service-signature'], receiver.secret);
      try {
        arrival.body = JSON.parse(arrival.raw.toString('utf8')) as DeliveryCallback;
      } catch {
        arrival.body = undefined as never;
      }
      receiver.arrivals.push(arrival as Arrival);
    });
    res.on('finish', () => {
      arrival.answeredWith = res.statusCode;
    });
    documented(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/deliveries`;
  return receiver;
}
