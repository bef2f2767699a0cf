// The partner's callback receiver, on loopback: notes when each event arrives, checks its
// signature with the partner client's `verifyWebhook` (passed in, since this plain module cannot
// import the client's TypeScript), and answers 200 at once.
import http from 'node:http';

export async function startWebhookReceiver({ verifyWebhook }) {
  const arrivals = new Map();
  const waiters = new Map();
  let secret = null;
  const counts = { received: 0, duplicates: 0, badSignatures: 0 };

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const raw = Buffer.concat(chunks);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
      counts.received += 1;
      if (secret && !verifyWebhook(raw, req.headers['x-service-signature'], secret)) counts.badSignatures += 1;
      let body;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return;
      }
      const key = `${body.delivery_id}:${body.event}`;
      if (arrivals.has(key)) {
        counts.duplicates += 1;
        return;
      }
      arrivals.set(key, at);
      waiters.get(key)?.(at);
      waiters.delete(key);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    counts,
    setSecret(value) {
      secret = value;
    },
    /** When the event for this delivery arrived (performance.now() of this process), or null. */
    arrivedAt(deliveryId, event) {
      return arrivals.get(`${deliveryId}:${event}`) ?? null;
    },
    /** Resolves with the arrival time, or null after `timeoutMs`. */
    waitFor(deliveryId, event, timeoutMs = 30_000) {
      const key = `${deliveryId}:${event}`;
      if (arrivals.has(key)) return Promise.resolve(arrivals.get(key));
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(key);
          resolve(null);
        }, timeoutMs);
        waiters.set(key, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
