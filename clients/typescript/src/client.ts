// The partner API from a partner's own server: one typed method per contract endpoint, on
// openapi-fetch over the types generated from the service's OpenAPI document (schema.ts).
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { PartnerApiError } from './errors';
import type { paths } from './schema';
import type {
  BookingRequest,
  Deleted,
  DeliveryChangePreview,
  DeliveryChangeRequest,
  Delivery,
  Handover,
  ListDeliveriesQuery,
  ListWebhookDeliveriesQuery,
  PaymentMethod,
  PaymentMethodRequest,
  PlaceSuggestion,
  PublicTracking,
  Quote,
  QuoteRequest,
  ResolvedPlace,
  SandboxRider,
  ServiceArea,
  SimulateStep,
  WebhookDelivery,
  WebhookSetting,
  WebhookUrl,
} from './types';

/** The document's `servers[0].url`: every path of the API is under it. */
export const API_PREFIX = '/api/v1';

export interface PartnerClientOptions {
  /** The service's address, such as `https://deliveries.example.com.gh`; the API is under `/api/v1` of it. */
  baseUrl: string;
  /** `sk_live_…` or `sk_test_…`. Sent to the partner endpoints only, never to the public ones. */
  apiKey: string;
  /** A fetch of your own (a proxy, a test double); the global fetch unless set. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface CallOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
}

export interface IdempotentCallOptions extends CallOptions {
  /**
   * The same key with the same body within 24 hours replays the first answer instead of acting
   * twice (a different body with it is 409 `conflict`). Send one per booking, and the same one on
   * every retry of it.
   */
  idempotencyKey?: string;
}

export interface BookingCallOptions extends IdempotentCallOptions {
  /**
   * Test-mode keys only (a live key is refused with 400): `manual` books a delivery no robo rider
   * rides, whose steps you take with `deliveries.simulate`; `robo` (the default) rides it by itself.
   */
  sandboxRider?: SandboxRider;
}

/** The raw openapi-fetch client over every operation of the document, the rider ones included. */
export type RawClient = Client<paths>;

/**
 * Sends the key to the partner endpoints, and turns every answer outside 2xx into a
 * PartnerApiError, so a method returns the resource or throws, and never returns an error body.
 */
function partnerMiddleware(apiKey: string): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      if (schemaPath.startsWith('/partner/')) request.headers.set('Authorization', `Bearer ${apiKey}`);
      return request;
    },
    async onResponse({ response }) {
      if (!response.ok) throw await PartnerApiError.fromResponse(response);
      return undefined;
    },
  };
}

/** The body of a 2xx answer; partnerMiddleware has already thrown for any other. */
function body<T>(result: { data?: T; response: Response }): T {
  return result.data as T;
}

export function createPartnerClient(options: PartnerClientOptions) {
  const raw: RawClient = createClient<paths>({
    baseUrl: `${options.baseUrl.replace(/\/+$/, '')}${API_PREFIX}`,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  raw.use(partnerMiddleware(options.apiKey));
  const idempotency = (key: string | undefined) => ({ header: key === undefined ? {} : { 'Idempotency-Key': key } });
  const bookingHeaders = (key: string | undefined, sandboxRider: SandboxRider | undefined) => ({
    header: { ...idempotency(key).header, ...(sandboxRider === undefined ? {} : { 'Sandbox-Rider': sandboxRider }) },
  });

  return {
    raw,
    quotes: {
      /** Prices a route without booking it. */
      create: async (quote: QuoteRequest, { signal }: CallOptions = {}): Promise<Quote> =>
        body(await raw.POST('/partner/quotes', { body: quote, signal })),
    },
    serviceArea: {
      /**
       * The areas every pickup, stop and drop-off must lie in, as a GeoJSON FeatureCollection of
       * named polygons ([longitude, latitude]); a point outside them is refused with 400.
       */
      get: async ({ signal }: CallOptions = {}): Promise<ServiceArea> => body(await raw.GET('/partner/service-area', { signal })),
    },
    deliveries: {
      /** Books a delivery; it starts `pending`, and the Mobile Money debit follows. */
      create: async (booking: BookingRequest, { idempotencyKey, sandboxRider, signal }: BookingCallOptions = {}): Promise<Delivery> =>
        body(await raw.POST('/partner/deliveries', { body: booking, params: bookingHeaders(idempotencyKey, sandboxRider), signal })),
      /** Newest first; `limit` 20 unless set (at most 100). */
      list: async (query: ListDeliveriesQuery = {}, { signal }: CallOptions = {}): Promise<Delivery[]> =>
        body(await raw.GET('/partner/deliveries', { params: { query }, signal })),
      /** One delivery with its whole event trail: what polling reads. */
      get: async (id: string, { signal }: CallOptions = {}): Promise<Delivery> =>
        body(await raw.GET('/partner/deliveries/{id}', { params: { path: { id } }, signal })),
      /**
       * Changes who receives the final drop and each stop (by index), or the parcel's description,
       * until that drop is handed over; after that, 400 with `details.status`. While the delivery is
       * `pending`, also where each drop is: new coordinates price the route again, and a higher
       * fare's difference is debited on its own (`fare_changes`); a lower one refunds nothing.
       */
      change: async (id: string, change: DeliveryChangeRequest, { idempotencyKey, signal }: IdempotentCallOptions = {}): Promise<Delivery> =>
        body(await raw.PATCH('/partner/deliveries/{id}', { params: { path: { id }, ...idempotency(idempotencyKey) }, body: change, signal })) as Delivery,
      /** What `change` would do to the fare (the new fare, the amount to debit, no refund), with nothing changed. */
      previewChange: async (id: string, change: DeliveryChangeRequest, { signal }: CallOptions = {}): Promise<DeliveryChangePreview> =>
        body(await raw.PATCH('/partner/deliveries/{id}', { params: { path: { id } }, body: { ...change, dry_run: true }, signal })) as DeliveryChangePreview,
      /** Cancels until the rider holds the parcel; after that, 400 with `details.status`. */
      cancel: async (id: string, { signal }: CallOptions = {}): Promise<Delivery> =>
        body(await raw.POST('/partner/deliveries/{id}/cancel', { params: { path: { id } }, signal })),
      /**
       * Test mode: takes one step of the manual sandbox rider of a delivery booked with
       * `sandboxRider: 'manual'`, and returns the delivery after it; its webhook follows.
       */
      simulate: async (id: string, step: SimulateStep, { signal }: CallOptions = {}): Promise<Delivery> =>
        body(await raw.POST('/partner/deliveries/{id}/simulate', { params: { path: { id } }, body: { step }, signal })),
      /**
       * Proof of delivery: each hand-over so far (stops, then the final drop). A photo's
       * `photo_url` works without the key for a few minutes; read the proof again for a fresh one.
       */
      proof: async (id: string, { signal }: CallOptions = {}): Promise<Handover[]> =>
        body(await raw.GET('/partner/deliveries/{id}/proof', { params: { path: { id } }, signal })),
      /**
       * Downloads a hand-over photo by the `photo_url` of the proof, as it is: the key is never
       * sent, as the link's signature is its credential. A link past its time throws a
       * PartnerApiError with status 403; read the proof again for a fresh one.
       */
      photo: async (photoUrl: string, { signal }: CallOptions = {}): Promise<Blob> => {
        const response = await (options.fetch ?? fetch)(new Request(photoUrl, { signal }));
        if (!response.ok) throw await PartnerApiError.fromResponse(response);
        return response.blob();
      },
    },
    paymentMethods: {
      /** Mobile Money accounts, default first. */
      list: async ({ signal }: CallOptions = {}): Promise<PaymentMethod[]> =>
        body(await raw.GET('/partner/payment-methods', { signal })),
      create: async (account: PaymentMethodRequest, { idempotencyKey, signal }: IdempotentCallOptions = {}): Promise<PaymentMethod> =>
        body(await raw.POST('/partner/payment-methods', { body: account, params: idempotency(idempotencyKey), signal })),
      delete: async (id: string, { signal }: CallOptions = {}): Promise<Deleted> =>
        body(await raw.DELETE('/partner/payment-methods/{id}', { params: { path: { id } }, signal })),
    },
    webhook: {
      get: async ({ signal }: CallOptions = {}): Promise<WebhookUrl> => body(await raw.GET('/partner/webhook', { signal })),
      /** Sets the callback URL and returns a fresh secret (the previous one stops working); null stops callbacks. */
      set: async (webhookUrl: string | null, { signal }: CallOptions = {}): Promise<WebhookSetting> =>
        body(await raw.PUT('/partner/webhook', { body: { webhook_url: webhookUrl }, signal })),
      /** The callback log, newest first, with each attempt. */
      deliveries: async (query: ListWebhookDeliveriesQuery = {}, { signal }: CallOptions = {}): Promise<WebhookDelivery[]> =>
        body(await raw.GET('/partner/webhook/deliveries', { params: { query }, signal })),
      /** Sends a callback again, signed with the current secret. */
      redeliver: async (id: string, { signal }: CallOptions = {}): Promise<WebhookDelivery> =>
        body(await raw.POST('/partner/webhook/deliveries/{id}/redeliver', { params: { path: { id } }, signal })),
    },
    tracking: {
      /** The public, redacted view behind the hosted tracking page; needs no key. */
      get: async (id: string, { signal }: CallOptions = {}): Promise<PublicTracking> =>
        body(await raw.GET('/track/{id}/public', { params: { path: { id } }, signal })),
    },
    places: {
      autocomplete: async (q: string, { signal }: CallOptions = {}): Promise<PlaceSuggestion[]> =>
        body(await raw.GET('/places/autocomplete', { params: { query: { q } }, signal })),
      resolve: async (placeId: string, { signal }: CallOptions = {}): Promise<ResolvedPlace> =>
        body(await raw.GET('/places/resolve', { params: { query: { place_id: placeId } }, signal })),
    },
  };
}

export type PartnerClient = ReturnType<typeof createPartnerClient>;
