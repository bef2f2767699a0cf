import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import * as bookings from '../../db/bookings';
import * as deliveries from '../../db/deliveries';
import { readBackCommitted, transactionOrFound } from '../../db/lost-commit';
import * as paymentMethods from '../../db/payment-methods';
import { poolTransaction } from '../../db/pool-query';
import { deliveryView, type DeliveryResource } from '../../domain/delivery-view';
import type { LatLng } from '../../domain/geo';
import { priceRoute } from '../../domain/pricing';
import { deliveryReference } from '../../domain/reference';
import { SANDBOX_RIDER_HEADER, type SandboxRider } from '../../domain/sandbox-rider';
import { deliveryWorkflow } from '../../workflows/delivery';
import { deliveryStartOptions, deliveryWorkflowInput } from '../../workflows/delivery/start';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import { bookingStartFailures, deliveriesBooked } from '../metric-registry';
import { bindClaimedKey, unbindClaimedKey, type IdempotencyClaim } from './idempotent-requests';
import { quotedFare } from './quoted-fare';
import { refuseUnpaidWork } from './unpaid-work';
import { checkServiceArea, routeWithinLimit } from './service-area-check';
import type { PartnerAuth } from '../middleware/partner-auth';
import type { BookingRequest } from '../openapi/schemas';
import { withinTemporalDeadline } from '../temporal/deadline';

/** Time for a booking's commit and, if its start fails, its withdrawal, beside the Temporal deadline. */
const WITHDRAWAL_MARGIN_MS = 5_000;

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

export function createBookingService({ orm, temporal, settings, routing, logger }: AppDeps) {
  /** The id of the account to debit: the one named, else the partner's default in this mode. */
  async function chooseAccount(auth: PartnerAuth, paymentMethodId: string | undefined): Promise<string> {
    const account = await paymentMethods.accountToDebit(orm.em, auth, paymentMethodId);
    if (account) return account;
    if (paymentMethodId) {
      throw ApiError.badRequest('The payment method is unknown or was removed', { payment_method_id: 'is not a registered account' });
    }
    throw ApiError.badRequest('Register a Mobile Money account before booking', {
      payment_method_id: 'no Mobile Money account is registered',
    });
  }

  /**
   * Withdraws a booking whose workflow may not have started (the start failed, or its answer did not
   * come in time and it may still reach the server), unless the workflow has claimed it already: the
   * claim and the withdrawal take the same row lock, so exactly one of them happens. Returns whether
   * the booking is live. One that cannot be withdrawn (Postgres is gone too) is kept, bound to its
   * Idempotency-Key, and the booking sweeper starts its workflow.
   */
  async function withdrawUnlessClaimed(auth: PartnerAuth, id: string, claim: IdempotencyClaim | undefined, cause: unknown): Promise<boolean> {
    let withdrawn: boolean;
    try {
      withdrawn = await poolTransaction(orm.em, async (tx) => {
        const gone = await bookings.withdrawUnclaimed(tx, id);
        if (gone && claim) await unbindClaimedKey(tx, claim, id);
        return gone;
      });
    } catch (error) {
      bookingStartFailures.inc({ outcome: 'kept' });
      logger.warn('Booking kept after its workflow failed to start', {
        deliveryId: id,
        partnerId: auth.partnerId,
        next: 'the booking sweeper starts its workflow',
        cause: errorText(cause),
        error: errorText(error),
      });
      return false;
    }
    bookingStartFailures.inc({ outcome: withdrawn ? 'withdrawn' : 'claimed' });
    return !withdrawn;
  }

  return {
    /**
     * How long booking may take before it answers, at most: the commit, the workflow's start under
     * the Temporal deadline, and a withdrawal. A repeat under the same key waits no longer.
     */
    longestBookingMs: settings.temporalCallTimeoutSeconds * 1000 + WITHDRAWAL_MARGIN_MS,

    /** The answer for a repeat of a booking whose own answer was not recorded: the delivery. */
    async answerForRepeat(id: string): Promise<{ status: number; body: DeliveryResource } | undefined> {
      const parts = await deliveries.load(orm.em.fork(), id);
      return parts ? { status: 201, body: deliveryView(parts, settings.siteUrl) } : undefined;
    },

    /** True until the booking's workflow claims it: the request booking it may still withdraw it. */
    async mayBeWithdrawn(id: string): Promise<boolean> {
      return !(await bookings.isClaimed(orm.em.fork(), id));
    },

    /**
     * Books a delivery: the row is committed first, in a transaction of its own (with the
     * `Idempotency-Key` claim, if any, bound to it), then the workflow is started, so no database
     * connection waits on Temporal. A start that fails withdraws the row unless the workflow has
     * claimed it (its first step), and the partner is answered 503; a row left without a workflow
     * any other way is found by the booking sweeper, which starts it.
     */
    async book(auth: PartnerAuth, body: BookingRequest, claim?: IdempotencyClaim, asked: { sandboxRider?: SandboxRider } = {}): Promise<DeliveryResource> {
      const sandboxRider = chooseSandboxRider(auth, asked.sandboxRider);
      checkServiceArea({ settings }, body);
      const scheduledAt = checkSchedule(body.scheduled_at);
      await refuseUnpaidWork({ orm, settings }, auth);
      const accountId = await chooseAccount(auth, body.payment_method_id);
      const route = routeOf(body);
      // A quote named holds its fare; without one, the route is priced now, as the contract says.
      const fare = body.quote_id
        ? await quotedFare({ orm }, auth, body.quote_id, route)
        : priceRoute((await routeWithinLimit({ routing, settings }, route)).distanceMeters);

      const id = randomUUID();
      const reference = deliveryReference(id, settings.referencePrefix);
      const verificationMethod = body.verification_method ?? 'none';
      const input = deliveryWorkflowInput(
        {
          id,
          partnerId: auth.partnerId,
          mode: auth.mode,
          reference,
          pickup: route[0] as LatLng,
          stops: route.slice(1, -1),
          dropoff: route[route.length - 1] as LatLng,
          verificationMethod,
          scheduledAt,
          sandboxRider,
        },
        settings,
      );

      // A booking whose COMMIT answer was lost is found and carried on with.
      const found = async () => ((await deliveries.exists(orm.em, id)) ? id : null);
      await transactionOrFound(
        orm.em,
        async (tx) => {
          await bookings.insert(tx, {
            id,
            partnerId: auth.partnerId,
            mode: auth.mode,
            reference,
            paymentMethodId: accountId,
            pickupAddress: body.pickup_address,
            pickupLat: body.pickup_lat,
            pickupLng: body.pickup_lng,
            dropoffAddress: body.dropoff_address,
            dropoffLat: body.dropoff_lat,
            dropoffLng: body.dropoff_lng,
            packageSize: body.package_size,
            packageDescription: body.package_description ?? null,
            recipientName: body.recipient_name,
            recipientPhone: body.recipient_phone,
            verificationMethod,
            scheduledAt,
            sandboxRider,
            baseFare: fare.baseFare,
            distanceMeters: fare.distanceMeters,
            distanceFee: fare.distanceFee,
            serviceFee: fare.serviceFee,
            totalFare: fare.totalFare,
            stops: (body.additional_stops ?? []).map((stop) => ({
              dropoffAddress: stop.dropoff_address,
              dropoffLat: stop.dropoff_lat,
              dropoffLng: stop.dropoff_lng,
              recipientName: stop.recipient_name,
              recipientPhone: stop.recipient_phone,
              packageSize: stop.package_size,
              packageDescription: stop.package_description ?? null,
            })),
          });
          if (claim) await bindClaimedKey(tx, claim, id);
          return id;
        },
        found,
      );

      try {
        await withinTemporalDeadline({ temporal, settings }, () =>
          temporal.workflow.start(deliveryWorkflow, {
            ...deliveryStartOptions(input, settings.temporalTaskQueue),
            workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          }),
        );
      } catch (error) {
        // Already started means the sweeper got there first (this start was slow): it is live.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError) && !(await withdrawUnlessClaimed(auth, id, claim, error))) {
          throw error;
        }
      }
      deliveriesBooked.inc({ mode: auth.mode });
      const parts = await readBackCommitted(() => deliveries.load(orm.em.fork(), id));
      if (!parts) throw new Error('A committed booking could not be read back');
      return deliveryView(parts, settings.siteUrl);
    },
  };
}

/**
 * Who rides the booking: in test mode the robo rider unless `Sandbox-Rider` asks for a manual one;
 * live bookings have real riders, so the header is refused there rather than ignored: a partner who
 * meant to drive the job would otherwise find a real rider sent and real money taken.
 */
function chooseSandboxRider(auth: PartnerAuth, asked: SandboxRider | undefined): SandboxRider | null {
  if (auth.mode === 'test') return asked ?? 'robo';
  if (asked !== undefined) {
    throw ApiError.badRequest(`${SANDBOX_RIDER_HEADER} is for test-mode keys only`, {
      [SANDBOX_RIDER_HEADER]: 'is for test-mode keys only; a live delivery is ridden by a real rider',
    });
  }
  return null;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
