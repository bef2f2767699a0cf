import { Type, type Static, type TSchema } from 'typebox';
import { DELIVERY_STATUSES, PACKAGE_SIZES, PAYMENT_STATUSES, VERIFICATION_METHODS } from '../../domain/lifecycle';
import { PROVIDERS } from '../../integrations/mobile-money/gateway';
import { UUID_PATTERN } from '../../domain/uuid';
import { LIMITS } from '../../domain/limits';
import { SANDBOX_RIDERS, SANDBOX_STEPS } from '../../domain/sandbox-rider';

/**
 * Every request and response body of the HTTP API, written once. The OpenAPI document is
 * assembled from these (document.ts) and requests are validated against it.
 */

/**
 * A closed set of strings, written as OpenAPI clients expect it (`"enum"`): generators make an
 * enum type of it, and the validator's refusal lists the allowed values ("must be equal to one of
 * the allowed values: small, medium, large") where an `anyOf` of constants said only "must be
 * equal to constant".
 */
const literalUnion = <T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

// The same rule as ids in paths (domain/uuid.ts).
export const Uuid = Type.String({ format: 'uuid', pattern: UUID_PATTERN });
export const Timestamp = Type.String({ format: 'date-time' });
export const Cedis = Type.Number({ description: 'Ghana cedis, 2 decimals' });
export const Latitude = Type.Number({ minimum: -90, maximum: 90 });
export const Longitude = Type.Number({ minimum: -180, maximum: 180 });
/** The contract's `+233XXXXXXXXX`, and a real number: `ghana-phone` is checked with libphonenumber (formats.ts). */
export const GhanaPhone = Type.String({
  pattern: '^\\+233[0-9]{9}$',
  format: 'ghana-phone',
  description: 'Ghana format +233XXXXXXXXX, a number in use (checked with libphonenumber)',
});
/** At least one character that is not white space: a blank address or name reaches nobody. */
export const NOT_BLANK = '\\S';
const Address = Type.String({ minLength: 1, maxLength: LIMITS.address, pattern: NOT_BLANK });
const PersonName = Type.String({ minLength: 1, maxLength: LIMITS.name, pattern: NOT_BLANK });
const Description = Type.String({ maxLength: LIMITS.description });
export const PackageSize = literalUnion(PACKAGE_SIZES);
export const DeliveryStatus = literalUnion(DELIVERY_STATUSES);
export const PaymentStatus = literalUnion(PAYMENT_STATUSES);

/** When `payment_status` may change, and so when a partner who relies on it reads it again. */
const PAYMENT_STATUS_RULE =
  'The debit taken at booking, of the fare as booked: ' +
  '`pending` until the mobile network settles the debit, then `paid` or `failed`; each webhook carries it as it stands. ' +
  'It can change once more after the delivery\'s last webhook, and no webhook is sent for that (the contract has no ' +
  'payment event): reconciliation with the network turns `failed` into `paid` when the money did move (a late ' +
  'approval), or `paid` into `failed` on a reversal. A partner who relies on it reads the delivery again after its ' +
  'last webhook (for example hourly for a day), and the dashboard\'s page of the delivery lists every such change.';
export const VerificationMethod = literalUnion(VERIFICATION_METHODS);

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A booking priced again after a change of places. */
const FareChange = Type.Object({
  previous_total_fare: Cedis,
  total_fare: Cedis,
  debit_amount: Type.Number({ description: 'Ghana cedis: the difference of a higher fare, debited on its own; 0 for a fare not higher (nothing is refunded)' }),
  debit_status: Nullable(
    Type.Unsafe<(typeof PAYMENT_STATUSES)[number]>({
      type: 'string',
      enum: [...PAYMENT_STATUSES],
      description: 'That debit as `payment_status` tells the booking\'s; null when nothing was owed',
    }),
  ),
  created_at: Type.String({ format: 'date-time' }),
});
export const Provider = literalUnion(PROVIDERS);

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Object({}, { additionalProperties: true }),
    }),
  },
  { $id: 'Error' },
);

const StopPoint = Type.Object({ dropoff_lat: Latitude, dropoff_lng: Longitude });

export const QuoteRequest = Type.Object(
  {
    pickup_lat: Latitude,
    pickup_lng: Longitude,
    dropoff_lat: Latitude,
    dropoff_lng: Longitude,
    additional_stops: Type.Optional(Type.Array(StopPoint, { maxItems: LIMITS.stops })),
  },
  { $id: 'QuoteRequest' },
);
export type QuoteRequest = Static<typeof QuoteRequest>;

export const Quote = Type.Object(
  {
    base_fare: Cedis,
    distance_km: Type.Number(),
    distance_fee: Cedis,
    service_fee: Cedis,
    total_fare: Cedis,
    distance_estimated: Type.Boolean({ description: 'True when the distance is an offline estimate, not a road route' }),
    quote_id: Type.String({
      format: 'uuid',
      pattern: UUID_PATTERN,
      description: 'Name it in a booking (`quote_id`) of this route before `expires_at` to pay this fare',
    }),
    expires_at: Type.String({ format: 'date-time', description: 'Until when a booking naming `quote_id` pays this fare (15 minutes, unless the service sets another)' }),
  },
  { $id: 'Quote' },
);

/** A GeoJSON position: longitude first. */
const Position = Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: '[longitude, latitude]' });

export const ServiceArea = Type.Object(
  {
    type: literalUnion(['FeatureCollection'] as const),
    features: Type.Array(
      Type.Object({
        type: literalUnion(['Feature'] as const),
        properties: Type.Object({ name: Type.String({ description: 'The area, such as `Greater Accra`' }) }),
        geometry: Type.Object({
          type: literalUnion(['Polygon'] as const),
          coordinates: Type.Array(Type.Array(Position, { minItems: 4 }), {
            minItems: 1,
            description: 'The outline, then any holes; each ring closed (its last position repeats its first)',
          }),
        }),
      }),
    ),
  },
  { $id: 'ServiceArea', description: 'The areas riders serve, as a GeoJSON FeatureCollection (RFC 7946) of named polygons' },
);

export const StopRequest = Type.Object({
  dropoff_address: Address,
  dropoff_lat: Latitude,
  dropoff_lng: Longitude,
  recipient_name: PersonName,
  recipient_phone: GhanaPhone,
  package_size: PackageSize,
  package_description: Type.Optional(Description),
});

export const BookingRequest = Type.Object(
  {
    pickup_address: Address,
    pickup_lat: Latitude,
    pickup_lng: Longitude,
    dropoff_address: Address,
    dropoff_lat: Latitude,
    dropoff_lng: Longitude,
    package_size: PackageSize,
    recipient_name: PersonName,
    recipient_phone: GhanaPhone,
    payment_method: literalUnion(['gateway'] as const),
    payment_method_id: Type.Optional(Uuid),
    package_description: Type.Optional(Description),
    verification_method: Type.Optional(VerificationMethod),
    scheduled_at: Type.Optional(Timestamp),
    additional_stops: Type.Optional(Type.Array(StopRequest, { maxItems: LIMITS.stops })),
    quote_id: Type.Optional(
      Type.String({
        format: 'uuid',
        pattern: UUID_PATTERN,
        description:
          "A quote of this partner and mode (POST /partner/quotes): the booking pays its fare, or is refused (400, `details.quote_id`) once it has expired, or when the route's pickup, stops or drop-off differ from the quoted ones (`details` names each field). Without it, the route is priced now.",
      }),
    ),
  },
  { $id: 'BookingRequest' },
);
export type BookingRequest = Static<typeof BookingRequest>;

/** The `Sandbox-Rider` header's values: who rides a test-mode booking. */
export const SandboxRider = literalUnion(SANDBOX_RIDERS);

export const SimulateRequest = Type.Object(
  {
    step: Type.Unsafe<(typeof SANDBOX_STEPS)[number]>({
      type: 'string',
      enum: [...SANDBOX_STEPS],
      description:
        '`accept`, `pickup`, `depart`, `complete_stop` (the next additional stop), `deliver` (the final drop), or `expire` (a job still pending, now)',
    }),
  },
  { $id: 'SimulateRequest', additionalProperties: false },
);


export const DeliveryEvent = Type.Object({ status: DeliveryStatus, created_at: Timestamp });

export const DeliveryStop = Type.Object({
  dropoff_address: Type.String(),
  dropoff_lat: Type.Number(),
  dropoff_lng: Type.Number(),
  recipient_name: Type.String(),
  recipient_phone: Type.String(),
  package_size: PackageSize,
  package_description: Nullable(Type.String()),
  status: literalUnion(['pending', 'delivered'] as const),
  delivered_at: Nullable(Timestamp),
  eta: Nullable(
    Type.String({
      format: 'date-time',
      description: 'When the rider is expected at this stop, traffic-aware; null unless a rider is on the trip and the stop is still to do',
    }),
  ),
});

export const DeliveryRider = Type.Object({
  id: Uuid,
  name: Type.String(),
  vehicle: Nullable(Type.String()),
  rating: Nullable(Type.Number()),
  lat: Nullable(
    Type.Number({ description: "The rider's last reported position while on this job (accepted, picked_up, in_transit); null otherwise" }),
  ),
  lng: Nullable(Type.Number({ description: "The rider's last reported position while on this job; null otherwise" })),
  located_at: Nullable(Type.String({ format: 'date-time', description: 'When the rider reported that position; null with it' })),
});

export const Delivery = Type.Object(
  {
    id: Uuid,
    reference: Type.String(),
    status: DeliveryStatus,
    pickup_address: Type.String(),
    pickup_lat: Type.Number(),
    pickup_lng: Type.Number(),
    dropoff_address: Type.String(),
    dropoff_lat: Type.Number(),
    dropoff_lng: Type.Number(),
    package_size: PackageSize,
    package_description: Nullable(Type.String()),
    recipient_name: Type.String(),
    recipient_phone: Type.String(),
    rider_id: Nullable(Uuid),
    rider: Nullable(DeliveryRider),
    pickup_eta: Nullable(
      Type.String({
        format: 'date-time',
        description: "When the rider is expected at the pickup, traffic-aware (the tracking view's estimate); null except while accepted",
      }),
    ),
    dropoff_eta: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When the rider is expected at the final drop-off, traffic-aware; null except while accepted, picked_up or in_transit',
      }),
    ),
    base_fare: Cedis,
    distance_km: Type.Number(),
    distance_fee: Cedis,
    service_fee: Cedis,
    total_fare: Cedis,
    payment_method: literalUnion(['gateway'] as const),
    payment_method_id: Uuid,
    payment_status: Type.Unsafe<(typeof PAYMENT_STATUSES)[number]>({
      type: 'string',
      enum: [...PAYMENT_STATUSES],
      description: PAYMENT_STATUS_RULE,
    }),
    amount_paid: Type.Number({
      description: 'Ghana cedis the mobile network has confirmed taken for this delivery: the booking\'s debit and each fare change\'s',
    }),
    fare_changes: Type.Array(FareChange, {
      description: 'Each time a change of places (`PATCH`, while `pending`) priced the route again, oldest first. `total_fare` is the latest',
    }),
    verification_method: VerificationMethod,
    scheduled_at: Nullable(Timestamp),
    additional_stops: Type.Array(DeliveryStop),
    tracking_url: Type.String(),
    created_at: Timestamp,
    delivered_at: Nullable(Timestamp),
    events: Type.Array(DeliveryEvent),
  },
  { $id: 'Delivery' },
);

/** One hand-over of a delivery: a stop's, or the final drop's. */
export const Handover = Type.Object(
  {
    stop_index: Nullable(Type.Integer({ minimum: 0, description: 'The index in `additional_stops`; null for the final drop-off' })),
    method: VerificationMethod,
    verified_at: Timestamp,
    lat: Nullable(Type.Number({ description: 'Where the rider was at the hand-over; null when the rider app sent no position' })),
    lng: Nullable(Type.Number()),
    photo_url: Nullable(
      Type.String({
        description:
          'With `method` photo: a signed link to the photo the rider took, which works without a key for `PROOF_LINK_MINUTES` ' +
          '(15 unless the service sets another) from this read; read the proof again for a fresh one. Null for other methods, ' +
          'and when no photo is kept (a test-mode delivery ridden by the robo rider)',
      }),
    ),
  },
  { $id: 'Handover' },
);
export type Handover = Static<typeof Handover>;

/** The body of every status callback; `data` is the Delivery as the REST API returns it. */
export const DeliveryCallback = Type.Object(
  {
    event: literalUnion(DELIVERY_STATUSES.filter((status) => status !== 'pending').map((status) => `delivery.${status}`)),
    delivery_id: Uuid,
    status: DeliveryStatus,
    occurred_at: Type.String({ format: 'date-time', description: 'UTC offset form, e.g. 2026-11-21T14:03:00.000+00:00' }),
    data: Delivery,
  },
  { $id: 'DeliveryCallback' },
);

/**
 * The dashboard's "Send a test event": the same envelope, headers and signature as a status
 * callback, but it belongs to no delivery, so a receiver acknowledges it and acts on nothing.
 */
export const TestCallback = Type.Object(
  {
    event: literalUnion(['webhook.test'] as const),
    delivery_id: Type.Null(),
    status: Type.Null(),
    occurred_at: Type.String({ format: 'date-time', description: 'UTC offset form, e.g. 2026-11-21T14:03:00.000+00:00' }),
    data: Type.Object({ message: Type.String() }),
  },
  { $id: 'TestCallback' },
);

export const ListQuery = {
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  // Any offset a JSON number holds exactly: past the list it is an empty page.
  offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
};

export const PaymentMethodRequest = Type.Object(
  {
    provider: Provider,
    phone: GhanaPhone,
    account_name: PersonName,
    is_default: Type.Optional(Type.Boolean()),
  },
  { $id: 'PaymentMethodRequest' },
);
export type PaymentMethodRequest = Static<typeof PaymentMethodRequest>;

export const PaymentMethod = Type.Object(
  {
    id: Uuid,
    provider: Provider,
    phone: Type.String(),
    account_name: Type.String(),
    is_default: Type.Boolean(),
    created_at: Timestamp,
  },
  { $id: 'PaymentMethod' },
);

export const Deleted = Type.Object({ id: Uuid, deleted: Type.Literal(true) }, { $id: 'Deleted' });

export const WebhookRequest = Type.Object(
  { webhook_url: Nullable(Type.String({ minLength: 1, maxLength: LIMITS.webhookUrl })) },
  { $id: 'WebhookRequest' },
);
export const WebhookSetting = Type.Object(
  { webhook_url: Nullable(Type.String()), webhook_secret: Nullable(Type.String()) },
  { $id: 'WebhookSetting' },
);
export const WebhookUrl = Type.Object({ webhook_url: Nullable(Type.String()) }, { $id: 'WebhookUrl' });

export const WebhookAttempt = Type.Object({
  attempt: Type.Integer(),
  status_code: Nullable(Type.Integer()),
  latency_ms: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  next_retry_at: Nullable(Timestamp),
  created_at: Timestamp,
});
export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    event: Type.String(),
    delivery_id: Nullable(Uuid),
    state: literalUnion(['pending', 'delivered', 'failed', 'skipped'] as const),
    created_at: Timestamp,
    attempts: Type.Array(WebhookAttempt),
  },
  { $id: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const PlaceSuggestion = Type.Object({ place_id: Type.String(), title: Type.String(), subtitle: Type.String() });
export const ResolvedPlace = Type.Object({ address: Type.String(), lat: Type.Number(), lng: Type.Number() });

export const PublicTracking = Type.Object(
  {
    reference: Type.String(),
    status: DeliveryStatus,
    package_size: PackageSize,
    pickup_address: Type.String(),
    pickup_lat: Type.Number(),
    pickup_lng: Type.Number(),
    dropoff_address: Type.String(),
    dropoff_lat: Type.Number(),
    dropoff_lng: Type.Number(),
    recipient_name: Type.String(),
    eta_min: Nullable(Type.Number()),
    rider: Nullable(
      Type.Object({
        name: Type.String(),
        vehicle: Nullable(Type.String()),
        rating: Nullable(Type.Number()),
        lat: Nullable(Type.Number()),
        lng: Nullable(Type.Number()),
      }),
    ),
    stops: Type.Array(
      Type.Object({
        dropoff_lat: Type.Number(),
        dropoff_lng: Type.Number(),
        status: literalUnion(['pending', 'delivered'] as const),
        eta_min: Nullable(Type.Number()),
      }),
    ),
    events: Type.Array(
      Type.Object({ status: DeliveryStatus, lat: Nullable(Type.Number()), lng: Nullable(Type.Number()), created_at: Timestamp }),
    ),
  },
  { $id: 'PublicTracking' },
);

// Rider app (DESIGN section 10).
export const AvailabilityRequest = Type.Object({ online: Type.Boolean() }, { $id: 'AvailabilityRequest' });
export const Availability = Type.Object(
  {
    online: Type.Boolean(),
    offline_reason: Type.Union([Type.Literal('silent'), Type.Literal('signed_out'), Type.Null()], {
      description:
        'Why the service set the rider offline: `silent` after RIDER_OFFLINE_MINUTES without a position, `signed_out` when the token was revoked or expired; null while online or when the rider went offline.',
    }),
  },
  { $id: 'Availability' },
);
export const LocationRequest = Type.Object({ lat: Latitude, lng: Longitude }, { $id: 'LocationRequest' });
export const Offer = Type.Object({
  delivery_id: Uuid,
  pickup_address: Type.String(),
  pickup_lat: Type.Number(),
  pickup_lng: Type.Number(),
  dropoff_address: Type.String(),
  dropoff_lat: Type.Number(),
  dropoff_lng: Type.Number(),
  stops_count: Type.Integer(),
  stops: Type.Array(
    Type.Object({
      index: Type.Integer(),
      dropoff_address: Type.String(),
      dropoff_lat: Type.Number(),
      dropoff_lng: Type.Number(),
      package_size: PackageSize,
      package_description: Nullable(Type.String()),
    }),
  ),
  package_size: PackageSize,
  package_description: Nullable(Type.String()),
  distance_km: Type.Number(),
  expires_at: Timestamp,
});
/**
 * How a rider reaches a recipient: a masked number that bridges to them while the job is active
 * (the contract's "masked calling"); null once the job is over. Never the recipient's own number.
 */
const MaskedCall = Type.Object({
  via: Type.String({ description: 'The number to dial; it reaches this recipient only while the job is active' }),
  expires_at: Timestamp,
});
export const RiderJob = Type.Object(
  {
    delivery_id: Uuid,
    reference: Type.String(),
    status: DeliveryStatus,
    pickup_address: Type.String(),
    pickup_lat: Type.Number(),
    pickup_lng: Type.Number(),
    dropoff_address: Type.String(),
    dropoff_lat: Type.Number(),
    dropoff_lng: Type.Number(),
    recipient_name: Type.String(),
    call: Nullable(MaskedCall),
    package_size: PackageSize,
    package_description: Nullable(Type.String()),
    verification_method: VerificationMethod,
    stops: Type.Array(
      Type.Object({
        index: Type.Integer(),
        dropoff_address: Type.String(),
        dropoff_lat: Type.Number(),
        dropoff_lng: Type.Number(),
        recipient_name: Type.String(),
        call: Nullable(MaskedCall),
        package_size: PackageSize,
        package_description: Nullable(Type.String()),
        status: literalUnion(['pending', 'delivered'] as const),
      }),
    ),
  },
  { $id: 'RiderJob' },
);
export const HandoverRequest = Type.Object({ otp: Type.Optional(Type.String({ maxLength: 12 })) }, { $id: 'HandoverRequest' });

/** New details of one drop; each field left out stays as it is, and a null description clears it. */
const DropChange = {
  recipient_name: Type.Optional(PersonName),
  recipient_phone: Type.Optional(GhanaPhone),
  package_description: Type.Optional(Nullable(Description)),
  dropoff_address: Type.Optional({ ...Address, description: 'While `pending` only' }),
  dropoff_lat: Type.Optional({ ...Latitude, description: 'While `pending` only, with `dropoff_lng`: the route is priced again' }),
  dropoff_lng: Type.Optional({ ...Longitude, description: 'While `pending` only, with `dropoff_lat`' }),
};

/**
 * What a booking keeps: named so that a change of them is refused (`cannot be changed`), not
 * dropped unseen with the unknown fields and answered 200.
 */
const Fixed = (what: string) => Type.Optional(Type.Never({ description: `Cannot be changed: ${what}` }));

export const DeliveryChangeRequest = Type.Object(
  {
    ...DropChange,
    pickup_address: Fixed('the pickup is where the rider is sent'),
    pickup_lat: Fixed('the pickup is where the rider is sent'),
    pickup_lng: Fixed('the pickup is where the rider is sent'),
    package_size: Fixed('the size was offered to riders'),
    verification_method: Fixed('the recipients were told how to receive their parcel'),
    dry_run: Type.Optional(
      Type.Boolean({ description: 'When true, nothing changes: the answer is a `DeliveryChangePreview` of what the change would do to the fare' }),
    ),
    additional_stops: Type.Optional(
      Type.Array(
        Type.Object(
          { index: Type.Integer({ minimum: 0, maximum: LIMITS.stops - 1, description: 'The stop in `additional_stops`, from 0' }), ...DropChange },
          { additionalProperties: false, minProperties: 2 },
        ),
        { minItems: 1, maxItems: LIMITS.stops },
      ),
    ),
  },
  {
    $id: 'DeliveryChangeRequest',
    additionalProperties: false,
    minProperties: 1,
    description:
      "Who receives the final drop-off and each additional stop (by `index`), and what the parcel is, until that drop is handed over. An `otp` delivery texts a new code to a changed phone, and the old code stops working. " +
      'While the delivery is `pending`, also where each drop is (`dropoff_address`, and `dropoff_lat` with `dropoff_lng`, inside the service area): new coordinates price the route again. ' +
      'A higher fare debits the difference from the booking\'s Mobile Money account as a debit of its own (`fare_changes`); a lower one refunds nothing.',
  },
);
export type DeliveryChangeRequest = Static<typeof DeliveryChangeRequest>;

const Fare = Type.Object({ base_fare: Cedis, distance_km: Type.Number(), distance_fee: Cedis, service_fee: Cedis, total_fare: Cedis });

/** What a change would do, told before anything changes (`dry_run`). */
export const DeliveryChangePreview = Type.Object(
  {
    dry_run: Type.Literal(true),
    status: DeliveryStatus,
    fare_before: Fare,
    fare_after: Type.Object(Fare.properties, { description: 'The same as `fare_before` when no coordinates change' }),
    debit_amount: Type.Number({ description: 'Ghana cedis the change would debit: the difference of a higher fare, else 0' }),
    refund_amount: Type.Number({ description: 'Always 0: the contract has no refunds, so a lower fare refunds nothing' }),
    message: Type.String(),
  },
  { $id: 'DeliveryChangePreview', additionalProperties: false },
);
