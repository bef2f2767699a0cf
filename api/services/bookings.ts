import { randomUUID } from 'node:crypto';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { deliveryExists, loadDelivery } from '../../db/delivery-reads';
import { readBackCommitted, transactionOrFound } from '../../db/lost-commit';
import { poolQuery } from '../../db/pool-query';
import { deliveryView, type DeliveryResource } from '../../domain/delivery-view';
import type { LatLng } from '../../domain/geo';
import { priceRoute } from '../../domain/pricing';
import { deliveryReference, deliveryWorkflowId } from '../../domain/reference';
import {
  DeliveryReferenceKey,
  DeliveryStatusKey,
  PartnerIdKey,
  PaymentStatusKey,
  type DeliveryWorkflowInput,
} from '../../workflows/messages';
import type { AppDeps } from '../deps';
import { ApiError } from '../errors';
import { deliveriesBooked } from '../metrics';
import { bindClaimedKey, type IdempotencyClaim } from '../middleware/idempotency';
import type { PartnerAuth } from '../middleware/partner-auth';
import type { BookingRequest } from '../openapi/schemas';
import { withinTemporalDeadline } from './temporal-deadline';
import { deliveryTimings } from './timings';

/** How far ahead a delivery may be booked. */
const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 3600 * 1000;
/**
 * 0001-01-01T00:00:00Z. RFC 3339 writes years from 0000, but PostgreSQL has no year 0 in that form
 * (it counts 1 BC): an earlier time would fail at the insert and be answered 500. A past time
 * dispatches at once; one before this is a client's mistake, and is told so.
 */
const EARLIEST_SCHEDULE_MS = Date.parse('0001-01-01T00:00:00Z');

function checkSchedule(scheduledAt: string | undefined): Date | null {
  if (!scheduledAt) return null;
  const at = new Date(scheduledAt);
  if (Number.isNaN(at.getTime())) throw ApiError.badRequest('The request is not valid', { scheduled_at: 'is not a valid time' });
  if (at.getTime() < EARLIEST_SCHEDULE_MS) {
    throw ApiError.badRequest('The request is not valid', { scheduled_at: 'must not be before 0001-01-01T00:00:00Z' });
  }
  if (at.getTime() - Date.now() > MAX_SCHEDULE_AHEAD_MS) {
    throw ApiError.badRequest('The request is not valid', { scheduled_at: 'must be within 30 days' });
  }
  return at;
}

/** The route in visiting order: pickup, each additional stop, the final drop-off. */
export function routeOf(body: {
  pickup_lat: number;
  pickup_lng: number;
  dropoff_lat: number;
  dropoff_lng: number;
  additional_stops?: { dropoff_lat: number; dropoff_lng: number }[];
}): LatLng[] {
  return [
    { lat: body.pickup_lat, lng: body.pickup_lng },
    ...(body.additional_stops ?? []).map((s) => ({ lat: s.dropoff_lat, lng: s.dropoff_lng })),
    { lat: body.dropoff_lat, lng: body.dropoff_lng },
  ];
}

/** The account a booking is debited from, named or the default; prepared, as every booking asks. */
const ACCOUNT_SQL = 'select id from payment_methods where partner_id = $1 and mode = $2 and deleted_at is null';
const NAMED_ACCOUNT = { name: 'booking-named-account', text: `${ACCOUNT_SQL} and id = $3` };
const DEFAULT_ACCOUNT = { name: 'booking-default-account', text: `${ACCOUNT_SQL} and is_default` };

/**
 * The row and its `pending` event in one statement, a round trip fewer in the transaction; named,
 * so each connection plans it once. Booking is the API's hottest write.
 */
const INSERT_DELIVERY = {
  name: 'booking-insert-delivery',
  text: `with delivery as (
      insert into deliveries (id, partner_id, mode, reference, payment_method_id, pickup_address, pickup_lat, pickup_lng,
        dropoff_address, dropoff_lat, dropoff_lng, package_size, package_description, recipient_name, recipient_phone,
        verification_method, scheduled_at, base_fare, distance_m, distance_fee, service_fee, total_fare, created_at, updated_at)
      values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
      returning id, created_at)
    insert into delivery_events (delivery_id, status, created_at) select id, 'pending', created_at from delivery`,
};

const INSERT_STOP = {
  name: 'booking-insert-stop',
  text: `insert into delivery_stops (delivery_id, position, dropoff_address, dropoff_lat, dropoff_lng, recipient_name,
      recipient_phone, package_size, package_description) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
};

export function createBookingService({ orm, temporal, settings, routing }: AppDeps) {
  /** The id of the account to debit: the one named, else the partner's default in this mode. */
  async function chooseAccount(auth: PartnerAuth, paymentMethodId: string | undefined): Promise<string> {
    const {
      rows: [account],
    } = await poolQuery(orm.em).query<{ id: string }>(
      paymentMethodId
        ? { ...NAMED_ACCOUNT, values: [auth.partnerId, auth.mode, paymentMethodId] }
        : { ...DEFAULT_ACCOUNT, values: [auth.partnerId, auth.mode] },
    );
    if (account) return account.id;
    if (paymentMethodId) {
      throw ApiError.badRequest('The payment method is unknown or was removed', { payment_method_id: 'is not a registered account' });
    }
    throw ApiError.badRequest('Register a Mobile Money account before booking', {
      payment_method_id: 'no Mobile Money account is registered',
    });
  }

  return {
    /**
     * Books a delivery. The row and the workflow come into being together: the workflow is
     * started inside the row's transaction, so a failed start rolls the row back, and a row
     * that fails to commit leaves a workflow that finds no booking and ends without a trace.
     * The `Idempotency-Key` claim, if any, is bound to the delivery in the same transaction.
     */
    async book(auth: PartnerAuth, body: BookingRequest, claim?: IdempotencyClaim): Promise<DeliveryResource> {
      const scheduledAt = checkSchedule(body.scheduled_at);
      const accountId = await chooseAccount(auth, body.payment_method_id);
      const route = routeOf(body);
      const fare = priceRoute((await routing.route(route)).distanceMeters);

      const id = randomUUID();
      const reference = deliveryReference(id, settings.referencePrefix);
      const now = new Date();
      const input: DeliveryWorkflowInput = {
        deliveryId: id,
        partnerId: auth.partnerId,
        mode: auth.mode,
        reference,
        pickup: route[0] as LatLng,
        stops: route.slice(1, -1),
        dropoff: route[route.length - 1] as LatLng,
        verificationMethod: body.verification_method ?? 'none',
        ...(scheduledAt && scheduledAt > now ? { scheduledAt: scheduledAt.toISOString() } : {}),
        timings: deliveryTimings(settings),
      };

      // A booking whose COMMIT answer was lost is found and answered as booked.
      const found = async () => ((await deliveryExists(orm.em, id)) ? id : null);
      await transactionOrFound(
        orm.em,
        async (tx) => {
          await tx.query({
            ...INSERT_DELIVERY,
            values: [
              id, auth.partnerId, auth.mode, reference, accountId, body.pickup_address, body.pickup_lat, body.pickup_lng,
              body.dropoff_address, body.dropoff_lat, body.dropoff_lng, body.package_size, body.package_description ?? null,
              body.recipient_name, body.recipient_phone, input.verificationMethod, scheduledAt, fare.baseFare,
              fare.distanceMeters, fare.distanceFee, fare.serviceFee, fare.totalFare, now, now,
            ],
          });
          for (const [position, stop] of (body.additional_stops ?? []).entries()) {
            await tx.query({
              ...INSERT_STOP,
              values: [id, position, stop.dropoff_address, stop.dropoff_lat, stop.dropoff_lng, stop.recipient_name,
                stop.recipient_phone, stop.package_size, stop.package_description ?? null],
            });
          }
          if (claim) await bindClaimedKey(tx, claim, id);
          await withinTemporalDeadline({ temporal, settings }, () => temporal.workflow.start('deliveryWorkflow', {
            workflowId: deliveryWorkflowId(id),
            taskQueue: settings.temporalTaskQueue,
            args: [input],
            workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            typedSearchAttributes: [
              { key: DeliveryStatusKey, value: 'pending' },
              { key: PaymentStatusKey, value: 'pending' },
              { key: PartnerIdKey, value: auth.partnerId },
              { key: DeliveryReferenceKey, value: reference },
            ],
          }));
          return id;
        },
        found,
      );
      deliveriesBooked.inc({ mode: auth.mode });
      const parts = await readBackCommitted(() => loadDelivery(orm.em.fork(), id));
      if (!parts) throw new Error('A committed booking could not be read back');
      return deliveryView(parts, settings.siteUrl);
    },
  };
}
