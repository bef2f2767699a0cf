import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/** What every callback carries (contract, "Callback shape"). */
export interface DeliveryCallback {
  event: string;
  delivery_id: string;
  status: string;
  occurred_at: string;
  data: Record<string, unknown>;
}

/** Callbacks are small; anything much larger is not from the service. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * True when `header` is `sha256=` followed by the hex HMAC-SHA256 of the exact bytes received,
 * keyed with the webhook secret. Computed over the raw bytes: re-serialising the parsed JSON
 * may change spacing or key order and break the signature.
 */
export function hasValidSignature(rawBody: Buffer, header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
  const received = Buffer.from(header);
  // Constant-time comparison; it needs equal lengths, and the length of a valid header is no secret.
  return received.length === expected.length && timingSafeEqual(received, expected);
}

/**
 * A callback endpoint for node:http (or Express, mounted before any body parser). It verifies the
 * signature over the raw bytes and passes each status change to `handle` once. It answers 2xx
 * only after `handle` has finished; an error in `handle` answers 500, and the service sends the
 * same bytes again later.
 */
export function deliveryCallbackReceiver(options: {
  /** Read on every request, so a rotated secret takes effect without a restart. */
  secret: () => string;
  handle: (callback: DeliveryCallback) => Promise<void>;
  /** Keys of callbacks already handled. In production, a unique index in your database. */
  handled?: Set<string>;
}): RequestListener {
  const handled = options.handled ?? new Set<string>();

  async function respond(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    if (req.method !== 'POST' || !hasValidSignature(raw, req.headers['x-service-signature'], options.secret())) {
      res.writeHead(401).end(); // Not from the service.
      return;
    }
    const callback = JSON.parse(raw.toString('utf8')) as DeliveryCallback;
    if (!callback.event.startsWith('delivery.')) {
      res.writeHead(204).end(); // Acknowledge what you do not act on, such as the dashboard's webhook.test.
      return;
    }
    // The same event may arrive more than once: act on each status change of a delivery once.
    const key = `${callback.delivery_id}:${callback.status}`;
    if (!handled.has(key)) {
      try {
        await options.handle(callback);
      } catch {
        res.writeHead(500).end(); // Not handled: the service will try again.
        return;
      }
      handled.add(key);
    }
    res.writeHead(204).end();
  }

  return (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      respond(req, res, Buffer.concat(chunks)).catch(() => {
        if (!res.headersSent) res.writeHead(400).end(); // Signed, but not a callback.
      });
    });
  };
}
