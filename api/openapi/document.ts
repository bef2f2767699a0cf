import type { TSchema } from 'typebox';
import { CODE_SAMPLES, type CodeSample, type CodeSamples } from './code-samples';
import * as S from './schemas';

/**
 * The OpenAPI 3.1 document, assembled from the TypeBox schemas. It is served at /openapi.json,
 * drives /docs, and express-openapi-validator validates every request against it.
 */
type Json = Record<string, unknown>;

const components: Record<string, Json> = {};

/**
 * Registers a schema under components and returns a reference to it. A named schema inside it
 * (one with an `$id`, such as the Delivery in a callback) becomes a reference too, so the
 * document holds one definition of each.
 */
function ref(name: string, schema: TSchema): Json {
  if (!components[name]) {
    const nestedAsRefs = (key: string, value: unknown) =>
      key !== '' && value !== null && typeof value === 'object' && typeof (value as { $id?: unknown }).$id === 'string'
        ? ref((value as { $id: string }).$id, value as TSchema)
        : value;
    const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema, nestedAsRefs)) as Json;
    components[name] = rest;
  }
  return { $ref: `#/components/schemas/${name}` };
}

function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('Error', S.ErrorEnvelope) } },
});

const jsonResponse = (description: string, schema: Json) => ({
  description,
  content: { 'application/json': { schema } },
});

const jsonBody = (schema: Json) => ({ required: true, content: { 'application/json': { schema } } });

const commonErrors = {
  '400': errorResponse('Invalid request: `details` lists each field at fault'),
  '413': errorResponse('Body over 100 kB'),
  '415': errorResponse('Body is not JSON'),
  '429': errorResponse('Rate limited'),
  '500': errorResponse('Internal error, with a request id in details'),
  '503': errorResponse('A backing service is unreachable'),
};
const keyedErrors = { ...commonErrors, '401': errorResponse('Missing, malformed, unknown or revoked key') };
const idParam = (description: string) => ({ name: 'id', in: 'path', required: true, description, schema: { type: 'string' } });
const idempotencyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Same key and body within 24 h replays the first answer; a different body is 409. A repeat sent while the first ' +
    'request is still running waits for its answer; if the first is still unresolved when it may no longer answer, the ' +
    'repeat is 409 with Retry-After, and never names a booking that the first may yet withdraw.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};
const sandboxRiderHeader = {
  name: 'Sandbox-Rider',
  in: 'header',
  required: false,
  description:
    'Test-mode keys only (400 with a live key): who rides the booking. `robo` (the default) takes every step by itself; ' +
    '`manual` takes none until you ask for each with `POST /partner/deliveries/{id}/simulate`.',
  schema: plain(S.SandboxRider),
};
/**
 * Conditional reads of the record and the tracking view (docs/decisions/0175-read-caches-that-hit.md):
 * an ETag on each answer, and 304 with no body when If-None-Match names the current one.
 */
const ifNoneMatchHeader = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The `ETag` of an earlier answer: when the answer would be the same bytes, it is 304 with no body.',
  schema: { type: 'string' },
};
const etagHeader = {
  ETag: {
    description:
      'A strong validator of these exact bytes, the same from every API process; it changes with anything the answer shows, ' +
      'the rider\'s position and the ETA included. Send it back in `If-None-Match`.',
    schema: { type: 'string' },
  },
};
const withEtag = <R extends Json>(response: R) => ({ ...response, headers: etagHeader });
const notModified = { description: 'Nothing changed since the answer whose ETag was sent in If-None-Match: no body', headers: etagHeader };
const partner = { security: [{ partnerKey: [] }] };
/** How a quote's or booking's 400 names a route it will not take (GET /partner/service-area). */
const ROUTE_REFUSALS =
  ', a point outside the service area (`details` names its latitude field: `{"dropoff_lat": "outside the service area"}`), ' +
  'or a route longer by road than `MAX_ROUTE_KM` (`{"route": "longer than 80 km"}`)';
const rider = { security: [{ riderToken: [] }] };
const multipartHandover = {
  'multipart/form-data': {
    schema: {
      type: 'object',
      properties: { otp: { type: 'string', maxLength: 12 }, photo: { type: 'string', format: 'binary' } },
    },
  },
};
const handoverBody = {
  required: false,
  content: { 'application/json': { schema: ref('HandoverRequest', S.HandoverRequest) }, ...multipartHandover },
};

/** The same example in each client's language, as Markdown the docs page renders under the operation. */
function inEachClient(intro: string, samples: CodeSample[]): string {
  const blocks = samples.map(({ lang, fence, file, source }) => `**${lang}** (\`${file}\`):\n\n\`\`\`${fence}\n${source}\`\`\``);
  return [intro, ...blocks].join('\n\n');
}

/** `samples`: the clients' examples (clients/<language>/examples/), as code-samples.ts holds them unless given. */
export function buildOpenApiDocument(samples: CodeSamples = CODE_SAMPLES): Json {
  const delivery = ref('Delivery', S.Delivery);
  const paths: Json = {
    '/partner/quotes': {
      post: {
        ...partner,
        tags: ['Partner'],
        summary: 'Price a route',
        description:
          'Prices the route (pickup, any additional stops, drop-off) as booking does, and keeps the quote: a booking that names its ' +
          '`quote_id` before `expires_at` (15 minutes, unless the service sets `QUOTE_TTL_SECONDS`) pays this fare, on exactly this route. ' +
          'Booking without a quote prices the route itself.',
        operationId: 'createQuote',
        requestBody: jsonBody(ref('QuoteRequest', S.QuoteRequest)),
        responses: { '200': jsonResponse('The quote', ref('Quote', S.Quote)), ...keyedErrors, '400': errorResponse(`Invalid request (\`details\` lists each field at fault)${ROUTE_REFUSALS}`) },
      },
    },
    '/partner/service-area': {
      get: {
        ...partner,
        tags: ['Partner'],
        summary: 'Where pickups, stops and drop-offs may lie',
        description:
          'The areas riders serve, as a GeoJSON FeatureCollection of named polygons (positions are `[longitude, latitude]`), ' +
          'so an address can be checked before booking. A quote or booking with a point outside every area is refused with ' +
          '400 `bad_request`, `details` naming each such point by its latitude field: `{"dropoff_lat": "outside the service area"}`, ' +
          '`{"additional_stops[0].dropoff_lat": …}`. A route longer by road (the distance it is priced on) than `MAX_ROUTE_KM`, ' +
          '80 km unless the service sets another, is refused with `{"route": "longer than 80 km"}`. Nothing is saved or debited.',
        operationId: 'getServiceArea',
        responses: { '200': jsonResponse('The service area', ref('ServiceArea', S.ServiceArea)), ...keyedErrors },
      },
    },
    '/partner/deliveries': {
      post: {
        ...partner,
        tags: ['Partner'],
        summary: 'Book a delivery',
        description: inEachClient(
          'From your server, with the clients in `clients/` of the repository (each a few files, checked against this document): ' +
            'quote the route, then book it at the quoted fare. Each sends an `Idempotency-Key` (yours, or one made per call and ' +
            'kept on its retries) and retries 429 after `Retry-After` and 503.',
          samples.booking,
        ),
        operationId: 'createDelivery',
        parameters: [idempotencyHeader, sandboxRiderHeader],
        requestBody: jsonBody(ref('BookingRequest', S.BookingRequest)),
        responses: {
          '201': jsonResponse('The new delivery, status pending', delivery),
          '402': errorResponse(
            '`payment_required`: the debits of `UNPAID_BOOKINGS_LIMIT` recent deliveries in this mode failed (after the latest paid one, within a day); booking resumes when a debit succeeds or the hold is lifted. `details` gives `unpaid_deliveries`, `limit` and `what_to_do`; nothing is saved',
          ),
          '409': errorResponse('Idempotency-Key reused with a different body, or its first request still unresolved (Retry-After)'),
          ...keyedErrors,
          '400': errorResponse(
            `Invalid request (\`details\` lists each field at fault)${ROUTE_REFUSALS}, no Mobile Money account registered yet, a \`payment_method_id\` that is unknown or removed, ` +
              'or a `quote_id` that is unknown (another account\'s or mode\'s included: `{"quote_id": …}`), has expired (`{"quote_id": "has expired"}`) ' +
              'or was for another route (`details` names each coordinate that differs: `{"dropoff_lat": "differs from the quoted route"}`, ' +
              '`{"additional_stops[0].dropoff_lng": …}`, or `{"additional_stops": …}` for another number of stops), or a `Sandbox-Rider` header with a live key',
          ),
        },
      },
      get: {
        ...partner,
        tags: ['Partner'],
        summary: 'List deliveries, newest first',
        operationId: 'listDeliveries',
        parameters: [
          { name: 'limit', in: 'query', required: false, schema: plain(S.ListQuery.limit) },
          { name: 'offset', in: 'query', required: false, schema: plain(S.ListQuery.offset) },
          { name: 'status', in: 'query', required: false, schema: plain(S.DeliveryStatus) },
        ],
        responses: { '200': jsonResponse('A page of deliveries', { type: 'array', items: delivery }), ...keyedErrors },
      },
    },
    '/partner/deliveries/{id}': {
      get: {
        ...partner,
        tags: ['Partner'],
        summary: 'Fetch a delivery with its full event trail',
        description:
          'While a rider is on the job (`accepted`, `picked_up`, `in_transit`), `rider` carries where they last reported ' +
          '(`lat`, `lng`, `located_at`) and `pickup_eta`, `dropoff_eta` and each stop\'s `eta` say when they are expected, from ' +
          'the traffic-aware estimate of the public tracking view: computed at each status change and refreshed on a read at most ' +
          'every 20 seconds. Otherwise they are null. The list and the callbacks carry the figure last computed.\n\n' +
          'Polling: send the last answer\'s `ETag` in `If-None-Match`; while nothing the answer shows has changed (its rider\'s ' +
          'position and ETA included), the answer is 304 with no body. Another account\'s delivery is 404 whatever is sent.',
        operationId: 'getDelivery',
        parameters: [idParam('Delivery id'), ifNoneMatchHeader],
        responses: {
          '200': withEtag(jsonResponse('The delivery', delivery)),
          '304': notModified,
          '404': errorResponse('Unknown delivery'),
          ...keyedErrors,
        },
      },
      patch: {
        ...partner,
        tags: ['Partner'],
        summary: 'Change a booking: who receives it, what the parcel is, and while pending where it goes',
        description:
          'Until each drop is handed over: its `recipient_name`, `recipient_phone` and `package_description`, for the final ' +
          'drop-off at the top level and for each additional stop by `index`. With `verification_method: otp`, a changed phone ' +
          'is texted a new code and the old code stops working.\n\n' +
          'While the delivery is `pending` only: `dropoff_address`, and `dropoff_lat` with `dropoff_lng`, of the final drop-off ' +
          'and of each stop, inside the service area. New coordinates price the route again: a higher fare debits the difference ' +
          'from the booking\'s Mobile Money account as a debit of its own (idempotent and reconciled like the booking\'s; ' +
          '`fare_changes` shows it and its `debit_status`, `amount_paid` what was taken); a lower fare refunds nothing, as the ' +
          'contract has no refunds. `payment_status` stays the booking\'s own debit. Send `"dry_run": true` first to be told ' +
          'the new fare, the amount to be debited and that nothing is refunded, with nothing changed.\n\n' +
          'The rider sees the change at once (offers and the current job); no webhook is sent, as the status does not change.',
        operationId: 'changeDelivery',
        parameters: [idParam('Delivery id'), idempotencyHeader],
        requestBody: jsonBody(ref('DeliveryChangeRequest', S.DeliveryChangeRequest)),
        responses: {
          '200': jsonResponse('The delivery as changed; with `dry_run`, what the change would do (nothing changed)', {
            oneOf: [delivery, ref('DeliveryChangePreview', S.DeliveryChangePreview)],
          }),
          '404': errorResponse('Unknown delivery'),
          '409': errorResponse(
            'Idempotency-Key reused with a different body, or its first request still unresolved (Retry-After); or another change of places, or a rider\'s accept, was being written at the same moment (send it again)',
          ),
          ...keyedErrors,
          '400': errorResponse(
            'Invalid request (`details` lists each field at fault); a point outside the service area; or too late: the delivery has ended, a place was named once it was no longer `pending`, or a stop named is already handed over or is not there (`details.status` is its status, `details.additional_stops` says which stop)',
          ),
        },
      },
    },
    '/partner/deliveries/{id}/proof': {
      get: {
        ...partner,
        tags: ['Partner'],
        summary: 'Proof of delivery: each hand-over, with its photo',
        description:
          'One entry per hand-over done so far, in the order the rider made them: each additional stop (`stop_index`), then the ' +
          'final drop-off (`stop_index` null) once the delivery is `delivered`. Each gives the booking\'s `method`, when the ' +
          'hand-over was verified and where the rider was. With `photo`, `photo_url` is a signed link to the exact photo the ' +
          'rider uploaded, served with its content type, that works without a key for `PROOF_LINK_MINUTES` (15 unless the ' +
          'service sets another); every read signs fresh links. A link that is altered or past its time answers 403. Proof is kept as long as ' +
          'the delivery\'s personal data is.',
        operationId: 'getDeliveryProof',
        parameters: [idParam('Delivery id')],
        responses: {
          '200': jsonResponse('The hand-overs so far (empty before the first)', { type: 'array', items: ref('Handover', S.Handover) }),
          '404': errorResponse('Unknown delivery'),
          ...keyedErrors,
        },
      },
    },
    '/partner/deliveries/{id}/cancel': {
      post: {
        ...partner,
        tags: ['Partner'],
        summary: 'Cancel a delivery before the rider holds the parcel',
        operationId: 'cancelDelivery',
        parameters: [idParam('Delivery id')],
        responses: {
          '200': jsonResponse('The delivery, status cancelled', delivery),
          '404': errorResponse('Unknown delivery'),
          ...keyedErrors,
          '400': errorResponse(
            'Too late to cancel: the delivery is picked_up, in_transit, delivered or expired (`details.status` is its status); or a body that is not valid JSON',
          ),
        },
      },
    },
    '/partner/deliveries/{id}/simulate': {
      post: {
        ...partner,
        tags: ['Partner'],
        summary: 'Take a step of a test delivery’s manual sandbox rider',
        description:
          'Test mode only: a delivery booked with a test key and the header `Sandbox-Rider: manual` has no robo rider; each call ' +
          'takes one step for its sandbox rider, through the same workflow update a rider app’s request becomes, and answers ' +
          'with the Delivery as `GET /partner/deliveries/{id}` returns it. The webhook of a status change follows, as with a ' +
          'real rider (`complete_stop` changes no status and sends none; the stop shows in `additional_stops`). Hand-over ' +
          'codes and photos are passed by the sandbox rider itself. A step the status does not allow is refused as a rider’s ' +
          'would be: 400 `bad_request` with `details.status`, or 409 `conflict` for an `accept` of a job no longer pending. ' +
          'With a live key this path does not exist (404).',
        operationId: 'simulateDelivery',
        parameters: [idParam('Delivery id')],
        requestBody: jsonBody(ref('SimulateRequest', S.SimulateRequest)),
        responses: {
          '200': jsonResponse('The delivery after the step', delivery),
          '404': errorResponse(
            'Unknown delivery, a live key, or `complete_stop` with no additional stop left to hand over (`This delivery has no such stop`)',
          ),
          '409': errorResponse('`accept` of a job no longer pending'),
          ...keyedErrors,
          '400': errorResponse(
            'A step the status does not allow (`details.status`), `expire` of a job no longer pending, a delivery the robo rider rides (`details.sandbox_rider`), or a body that is not valid',
          ),
        },
      },
    },
    '/partner/payment-methods': {
      get: {
        ...partner,
        tags: ['Partner'],
        summary: 'List Mobile Money accounts, default first',
        operationId: 'listPaymentMethods',
        responses: {
          '200': jsonResponse('Accounts', { type: 'array', items: ref('PaymentMethod', S.PaymentMethod) }),
          ...keyedErrors,
        },
      },
      post: {
        ...partner,
        tags: ['Partner'],
        summary: 'Register a Mobile Money account',
        operationId: 'createPaymentMethod',
        parameters: [idempotencyHeader],
        requestBody: jsonBody(ref('PaymentMethodRequest', S.PaymentMethodRequest)),
        responses: {
          '201': jsonResponse('The account', ref('PaymentMethod', S.PaymentMethod)),
          '409': errorResponse('Idempotency-Key reused with a different body, or its first request still unresolved (Retry-After)'),
          ...keyedErrors,
          '400': errorResponse(
            'Invalid request (`details` lists each field at fault), or the number does not exist or is on another network than `provider`; nothing is saved',
          ),
        },
      },
    },
    '/partner/payment-methods/{id}': {
      delete: {
        ...partner,
        tags: ['Partner'],
        summary: 'Remove a Mobile Money account',
        operationId: 'deletePaymentMethod',
        parameters: [idParam('Account id')],
        responses: {
          '200': jsonResponse('Removed', ref('Deleted', S.Deleted)),
          '404': errorResponse('Unknown account'),
          ...keyedErrors,
        },
      },
    },
    '/partner/webhook': {
      get: {
        ...partner,
        tags: ['Partner'],
        summary: 'The configured callback URL',
        operationId: 'getWebhook',
        responses: { '200': jsonResponse('The URL (the secret is never read back)', ref('WebhookUrl', S.WebhookUrl)), ...keyedErrors },
      },
      put: {
        ...partner,
        tags: ['Partner'],
        summary: 'Set or clear the callback URL',
        operationId: 'putWebhook',
        requestBody: jsonBody(ref('WebhookRequest', S.WebhookRequest)),
        responses: {
          '200': jsonResponse('The URL and a fresh secret (both null when cleared)', ref('WebhookSetting', S.WebhookSetting)),
          ...keyedErrors,
        },
      },
    },
    '/partner/webhook/deliveries': {
      get: {
        ...partner,
        tags: ['Partner'],
        summary: 'Callback log, newest first, with each attempt',
        operationId: 'listWebhookDeliveries',
        parameters: [
          { name: 'limit', in: 'query', required: false, schema: plain(S.ListQuery.limit) },
          { name: 'offset', in: 'query', required: false, schema: plain(S.ListQuery.offset) },
        ],
        responses: {
          '200': jsonResponse('Callbacks', { type: 'array', items: ref('WebhookDelivery', S.WebhookDelivery) }),
          ...keyedErrors,
        },
      },
    },
    '/partner/webhook/deliveries/{id}/redeliver': {
      post: {
        ...partner,
        tags: ['Partner'],
        summary: 'Send a callback again, signed with the current secret',
        operationId: 'redeliverWebhook',
        parameters: [idParam('Callback id (the X-Service-Event-Id)')],
        responses: {
          '202': jsonResponse('Queued', ref('WebhookDelivery', S.WebhookDelivery)),
          '404': errorResponse('Unknown callback'),
          ...keyedErrors,
        },
      },
    },
    '/track/{id}/public': {
      get: {
        tags: ['Public'],
        summary: 'Public, redacted tracking view',
        description:
          'Answered with `Cache-Control: no-store` (the id is the credential: no shared cache may keep it) and an `ETag`, which a ' +
          'page polling the view may send back in `If-None-Match`: while the view is unchanged, the rider\'s position and the ' +
          'minutes ahead included, the answer is 304 with no body. Cross-origin pages can read the `ETag`.',
        operationId: 'getPublicTracking',
        security: [],
        parameters: [idParam('Delivery id'), ifNoneMatchHeader],
        responses: {
          '200': withEtag(jsonResponse('The view', ref('PublicTracking', S.PublicTracking))),
          '304': notModified,
          '404': errorResponse('Unknown delivery'),
          ...commonErrors,
        },
      },
    },
    '/proof-photos/{delivery_id}/{drop}': {
      get: {
        tags: ['Public'],
        summary: 'A hand-over photo, by a signed link',
        description:
          'Where a `photo_url` of the proof of delivery points when the service keeps photos itself (with an object store, ' +
          '`photo_url` is the store\'s own signed link instead). Take the link as given: its signature is the credential, ' +
          'and it works until `expires`.',
        operationId: 'getProofPhoto',
        security: [],
        parameters: [
          { name: 'delivery_id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'drop', in: 'path', required: true, description: '`final`, or `stop-` and the stop\'s index', schema: { type: 'string' } },
          { name: 'expires', in: 'query', required: true, description: 'When the link stops working, in seconds since 1970', schema: { type: 'string', pattern: '^[0-9]{1,12}$' } },
          { name: 'signature', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 100 } },
        ],
        responses: {
          '200': {
            description: 'The photo, exactly as the rider uploaded it',
            content: Object.fromEntries(['image/jpeg', 'image/png', 'image/webp'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
          },
          '403': errorResponse('The link is not one the service signed, or it has expired (`details.expired`): read the proof again'),
          '404': errorResponse('Unknown photo'),
          ...commonErrors,
        },
      },
    },
    '/places/autocomplete': {
      get: {
        tags: ['Public'],
        summary: 'Place suggestions',
        operationId: 'autocompletePlaces',
        security: [],
        parameters: [{ name: 'q', in: 'query', required: true, schema: { type: 'string', maxLength: 200 } }],
        responses: {
          '200': jsonResponse('At most 10 suggestions, best first', { type: 'array', items: plain(S.PlaceSuggestion) }),
          ...commonErrors,
        },
      },
    },
    '/places/resolve': {
      get: {
        tags: ['Public'],
        summary: 'Coordinates of a suggested place',
        operationId: 'resolvePlace',
        security: [],
        parameters: [{ name: 'place_id', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 2000 } }],
        responses: {
          '200': jsonResponse('The place', plain(S.ResolvedPlace)),
          '404': errorResponse('Unknown place'),
          ...commonErrors,
        },
      },
    },
    '/rider/sign-in': {
      post: {
        tags: ['Rider'],
        summary: 'Exchange a one-time sign-in code for a rider token',
        description:
          'The rider app opens an operator’s sign-in link (`/rider/sign-in#<code>`) and sends its code here. A code works once, ' +
          'for 24 hours; the token it gives replaces the rider’s previous one. Rate limited per IP address.',
        operationId: 'riderSignIn',
        security: [],
        requestBody: jsonBody({
          type: 'object',
          required: ['code'],
          properties: { code: { type: 'string', pattern: '^[A-Za-z0-9_-]{32}$' } },
        }),
        responses: {
          '200': jsonResponse('Signed in', {
            type: 'object',
            required: ['rider_id', 'rider_token'],
            properties: { rider_id: { type: 'string', format: 'uuid' }, rider_token: { type: 'string' } },
          }),
          '401': errorResponse('The code is unknown, used or expired (`details.reason`)'),
          ...commonErrors,
        },
      },
    },
    '/rider/availability': {
      get: {
        ...rider,
        tags: ['Rider'],
        summary: 'Whether this rider is online, and why the service set them offline',
        operationId: 'getAvailability',
        responses: { '200': jsonResponse('Availability', ref('Availability', S.Availability)), ...keyedErrors },
      },
      put: {
        ...rider,
        tags: ['Rider'],
        summary: 'Go online or offline',
        operationId: 'setAvailability',
        requestBody: jsonBody(ref('AvailabilityRequest', S.AvailabilityRequest)),
        responses: { '200': jsonResponse('Availability', ref('AvailabilityRequest', S.AvailabilityRequest)), ...keyedErrors },
      },
    },
    '/rider/location': {
      post: {
        ...rider,
        tags: ['Rider'],
        summary: 'Report the current position',
        operationId: 'reportLocation',
        requestBody: jsonBody(ref('LocationRequest', S.LocationRequest)),
        responses: { '204': { description: 'Stored' }, ...keyedErrors },
      },
    },
    '/rider/offers': {
      get: {
        ...rider,
        tags: ['Rider'],
        summary: 'Jobs offered to this rider',
        operationId: 'listOffers',
        responses: { '200': jsonResponse('Offers', { type: 'array', items: plain(S.Offer) }), ...keyedErrors },
      },
    },
    '/rider/deliveries/current': {
      get: {
        ...rider,
        tags: ['Rider'],
        summary: "The rider's active job",
        operationId: 'currentJob',
        responses: { '200': jsonResponse('The job', ref('RiderJob', S.RiderJob)), '404': errorResponse('No active job'), ...keyedErrors },
      },
    },
    '/rider/deliveries/{id}/accept': riderAction('acceptJob', 'Take the job (first rider wins)'),
    '/rider/deliveries/{id}/pickup': riderAction('pickUp', 'Parcel collected'),
    '/rider/deliveries/{id}/depart': riderAction('depart', 'Heading to the drop-off'),
    '/rider/deliveries/{id}/stops/{index}/complete': riderAction('completeStop', 'Hand over at an additional stop', true, [
      { name: 'index', in: 'path', required: true, schema: { type: 'integer', minimum: 0, maximum: 9 } },
    ]),
    '/rider/deliveries/{id}/deliver': riderAction('deliver', 'Final hand-over', true),
  };

  function riderAction(operationId: string, summary: string, handover = false, extra: Json[] = []): Json {
    return {
      post: {
        ...rider,
        tags: ['Rider'],
        summary,
        operationId,
        parameters: [idParam('Delivery id'), ...extra],
        ...(handover ? { requestBody: handoverBody } : {}),
        responses: {
          '200': jsonResponse('The job', ref('RiderJob', S.RiderJob)),
          '404': errorResponse('Not offered to this rider, or unknown'),
          '409': errorResponse('Taken by another rider, or no longer pending'),
          ...keyedErrors,
        },
      },
    };
  }

  const callback = ref('DeliveryCallback', S.DeliveryCallback);
  const callbackHeaders = [
    { name: 'X-Service-Signature', in: 'header', required: true, schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' } },
    { name: 'X-Service-Event-Id', in: 'header', required: true, description: 'The same on every attempt of one event', schema: { type: 'string', format: 'uuid' } },
    { name: 'X-Service-Event', in: 'header', required: true, description: 'The `event` of the body', schema: { type: 'string' } },
    { name: 'X-Service-Attempt', in: 'header', required: true, description: 'Tries of this event so far: 1 to 6, and on with each redelivery', schema: { type: 'string', pattern: '^[1-9][0-9]*$' } },
  ];

  return {
    openapi: '3.1.0',
    info: {
      title: 'Partner Delivery API',
      version: '1.0.0',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        'Book motorbike parcel deliveries in Ghana, pay by Mobile Money and follow them by signed webhooks, polling or public tracking.',
    },
    servers: [{ url: '/api/v1' }],
    tags: [
      { name: 'Partner', description: 'Keyed with `Authorization: Bearer sk_live_…` or `sk_test_…`' },
      { name: 'Public', description: 'No key needed' },
      { name: 'Rider', description: 'Rider app, keyed with a rider token `rk_…`' },
    ],
    paths,
    // The callbacks a partner receives (OpenAPI 3.1 webhooks): what a receiver is sent and must answer.
    webhooks: {
      deliveryStatusChanged: {
        post: {
          operationId: 'deliveryStatusChanged',
          summary: 'A delivery changed status',
          description:
            'Sent to the partner’s `webhook_url` on each status change (none for `pending`). Verify ' +
            '`X-Service-Signature`: `sha256=` and the lowercase hex HMAC-SHA256 of the raw body bytes, keyed ' +
            'with the webhook secret, compared in constant time. Answer any 2xx within 10 s; anything else is ' +
            'retried with exponential backoff, at most five times, with the same bytes and event id. The same ' +
            'event may arrive more than once: de-duplicate on `X-Service-Event-Id` or `delivery_id` plus `status`.\n\n' +
            inEachClient('A receiver in each client\u2019s language, verifying the raw bytes with its `verifyWebhook`:', samples.webhookReceiver),
          tags: ['Partner'],
          parameters: callbackHeaders,
          // Authenticated by its signature header, not by a scheme the receiver is asked for.
          security: [],
          requestBody: jsonBody(callback),
          responses: { '2XX': { description: 'Received' } },
        },
      },
      webhookTest: {
        post: {
          operationId: 'webhookTest',
          summary: 'A test event sent from the dashboard',
          description:
            'Sent to the `webhook_url` when the partner presses "Send a test event" on the dashboard, with the ' +
            'same headers and signature as a status callback, so a receiver and its signature check can be tried ' +
            'before any delivery. It belongs to no delivery (`delivery_id` and `status` are null): verify it, ' +
            'answer 2xx and act on nothing.',
          tags: ['Partner'],
          parameters: callbackHeaders,
          security: [],
          requestBody: jsonBody(ref('TestCallback', S.TestCallback)),
          responses: { '2XX': { description: 'Received' } },
        },
      },
    },
    components: {
      schemas: components,
      securitySchemes: {
        partnerKey: { type: 'http', scheme: 'bearer', description: 'Partner API key' },
        riderToken: { type: 'http', scheme: 'bearer', description: 'Rider token issued by an operator' },
      },
    },
  };
}

/**
 * The document as the request validator takes it: every query parameter with `allowReserved`.
 * The validator reads the default (`false`) as a rule for the server and refuses any value holding
 * a reserved character as written, so `q=Osu+Castle` (a space as URLSearchParams and HTML forms
 * write it), `q=Circle%20(Accra)` (encodeURIComponent leaves brackets) or a place id sent back as
 * given were 400. The value is decoded the same either way. The served document keeps the default,
 * which tells generated clients to encode.
 */
export function forRequestValidation(document: Json): Json {
  const copy = JSON.parse(JSON.stringify(document)) as {
    paths: Record<string, Record<string, { parameters?: Json[] }>>;
    webhooks?: unknown;
  };
  // Callbacks are sent, never received: nothing for the request validator.
  delete copy.webhooks;
  for (const operations of Object.values(copy.paths)) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query') parameter.allowReserved = true;
      }
    }
  }
  return copy as unknown as Json;
}
