// A callback receiver. Run: DELIVERY_WEBHOOK_SECRET=… npx tsx webhook.ts (port 8080, or PORT)
import { createServer } from 'node:http';
import { verifyWebhook, type WebhookEvent } from '../src'; // or '@partner-delivery/client'

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks); // the exact bytes: never JSON.stringify(JSON.parse(...)) them
    if (!verifyWebhook(raw, req.headers['x-service-signature'], process.env.DELIVERY_WEBHOOK_SECRET ?? '')) {
      res.writeHead(401).end(); // not from the service
      return;
    }
    const event = JSON.parse(raw.toString('utf8')) as WebhookEvent;
    if (event.event.startsWith('delivery.') && event.event !== 'webhook.test') {
      // Your work: update the order, notify the customer... The same event may come again:
      // act once per delivery_id + status (a unique index in your database).
      console.log(event.event, event.delivery_id, event.data.payment_status);
    }
    res.writeHead(204).end(); // any 2xx within 10 s
  });
}).listen(Number(process.env.PORT ?? 8080));
