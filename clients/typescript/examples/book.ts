// Quote a route, then book it at the quoted fare. Run: DELIVERY_API_KEY=sk_test_… npx tsx book.ts
import { randomUUID } from 'node:crypto';
import { createPartnerClient, PartnerApiError, withRetries } from '../src'; // or '@partner-delivery/client'

const partner = createPartnerClient({ baseUrl: process.env.DELIVERY_BASE_URL ?? 'http://localhost:3000', apiKey: process.env.DELIVERY_API_KEY ?? '' });

const route = { pickup_lat: 5.5497, pickup_lng: -0.2096, dropoff_lat: 5.6052, dropoff_lng: -0.1668 };
async function main(): Promise<void> {
  try {
    const quote = await withRetries(() => partner.quotes.create(route));
    const idempotencyKey = `order-${randomUUID()}`; // your order number: the same on a retry of this booking
    const delivery = await withRetries(() =>
      partner.deliveries.create(
        {
          ...route,
          pickup_address: 'Makola Market, Accra',
          dropoff_address: 'Kotoka International Airport',
          package_size: 'small',
          recipient_name: 'Ama Serwaa',
          recipient_phone: '+233241234567',
          payment_method: 'gateway',
          quote_id: quote.quote_id,
        },
        { idempotencyKey },
      ),
    );
    console.log(delivery.reference, delivery.status, delivery.total_fare, 'GHS', delivery.tracking_url);
  } catch (error) {
    if (!(error instanceof PartnerApiError)) throw error;
    // 400 bad_request {"dropoff_lat":"outside the service area"} 5f0c…
    console.error(error.status, error.code, JSON.stringify(error.details), error.requestId);
    process.exitCode = 1;
  }
}

void main();
