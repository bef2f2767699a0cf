// Names for the schemas a partner handles most, taken from the generated types (schema.ts).
import type { components, operations } from './schema';

type Schemas = components['schemas'];

export type Delivery = Schemas['Delivery'];
export type DeliveryStatus = Delivery['status'];
export type BookingRequest = Schemas['BookingRequest'];
/** Who receives each drop and what the parcel is; while pending, where each drop is: only the fields named change. */
export type DeliveryChangeRequest = Omit<Schemas['DeliveryChangeRequest'], 'dry_run'>;
/** What a change would do to the fare, with nothing changed (`deliveries.previewChange`). */
export type DeliveryChangePreview = Schemas['DeliveryChangePreview'];
/** Who rides a test-mode booking: the robo rider, or nobody until you take each step. */
export type SandboxRider = NonNullable<NonNullable<operations['createDelivery']['parameters']['header']>['Sandbox-Rider']>;
/** A step of a manual sandbox rider (`deliveries.simulate`). */
export type SimulateStep = Schemas['SimulateRequest']['step'];
export type Quote = Schemas['Quote'];
export type QuoteRequest = Schemas['QuoteRequest'];
/** Where pickups, stops and drop-offs may lie: a GeoJSON FeatureCollection of named polygons. */
export type ServiceArea = Schemas['ServiceArea'];
export type PaymentMethod = Schemas['PaymentMethod'];
export type PaymentMethodRequest = Schemas['PaymentMethodRequest'];
export type Deleted = Schemas['Deleted'];
/** One hand-over of a delivery's proof of delivery. */
export type Handover = Schemas['Handover'];
export type WebhookUrl = Schemas['WebhookUrl'];
export type WebhookSetting = Schemas['WebhookSetting'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type PublicTracking = Schemas['PublicTracking'];
export type ErrorEnvelope = Schemas['Error'];
/** The body of a status callback: `data` is the Delivery as the REST API returns it. */
export type DeliveryCallback = Schemas['DeliveryCallback'];
/** The dashboard's "Send a test event": no delivery, nothing to act on. */
export type TestCallback = Schemas['TestCallback'];
/** Anything the service POSTs to a webhook URL. */
export type WebhookEvent = DeliveryCallback | TestCallback;

export type ListDeliveriesQuery = NonNullable<operations['listDeliveries']['parameters']['query']>;
export type ListWebhookDeliveriesQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;
export type PlaceSuggestion = operations['autocompletePlaces']['responses'][200]['content']['application/json'][number];
export type ResolvedPlace = operations['resolvePlace']['responses'][200]['content']['application/json'];
