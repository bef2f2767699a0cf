import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { CANCELLABLE, isTerminal, type DeliveryStatus, type PaymentStatus } from '../domain/lifecycle';
import {
  DEBIT_STORE_UNAVAILABLE,
  DeliveryStatusKey,
  FAILURE,
  PaymentStatusKey,
  acceptUpdate,
  cancelUpdate,
  completeStopUpdate,
  deliverUpdate,
  departUpdate,
  paymentSettledSignal,
  pickupUpdate,
  stateQuery,
  type DeliveryState,
  type DeliveryWorkflowInput,
  type HandoverProof,
  type RiderAction,
} from './messages';
import { roboRiderWorkflow } from './robo-rider';
import { webhookActivityOptions } from './webhook-policy';

/** How long a debit may stay unconfirmed before it is treated as failed. */
const PAYMENT_CONFIRM_LIMIT_SECONDS = 30 * 60;

/** Patch id: `beginDelivery` runs as a local activity. */
const BEGIN_LOCALLY = 'begin-delivery-locally';

/** Patch id: a rider's accept claims the rider and records `accepted` in one local activity. */
const ACCEPT_IN_ONE_STEP = 'accept-in-one-step';

/** Patch id: a cancel of an already cancelled delivery answers once the cancel is recorded. */
const CANCEL_ANSWERS_RECORDED = 'cancel-answers-recorded';

/** Patch id: an `otp` delivery's hand-over codes are texted by an activity of their own, beside the debit. */
const CODES_TEXTED_APART = 'hand-over-codes-texted-apart';

/** Patch id: the booking's first step outlasts a Postgres outage; only a row never committed ends the workflow. */
const BOOKING_CHECK_OUTLASTS_OUTAGES = 'booking-check-outlasts-outages';

/** Patch id: a debit whose last try failed on our own Postgres is tried again, not marked failed. */
const DEBIT_OUTLASTS_STORE_OUTAGES = 'debit-outlasts-store-outages';

/** The debit's tries ran out on our own Postgres, so the network may never have been asked. */
function failedOnOurStore(error: unknown): boolean {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === DEBIT_STORE_UNAVAILABLE;
}

/**
 * One delivery, from booking to a terminal status: the single writer of its state. It owns the
 * state machine (domain/lifecycle.ts), the dispatch deadline, the debit and the webhooks.
 */
export async function deliveryWorkflow(input: DeliveryWorkflowInput): Promise<DeliveryState> {
  const t = input.timings;

  // Database writes retry until Postgres answers: a transition a rider was told happened is never lost.
  // They are local activities (run by the worker holding this workflow, no task-queue round trip),
  // which takes two server round trips off the path from a rider's request to the webhook.
  const db = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    localRetryThreshold: '10 seconds',
    retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  });
  // The booking row is committed by the API right after it starts this workflow; allow it a moment.
  // Since BOOKING_CHECK_OUTLASTS_OUTAGES the step is tried until Postgres answers, and only a row
  // still missing BOOKING_COMMIT_GRACE_SECONDS (a worker setting, 30 s) after the start ends the
  // workflow: before, it gave up after 8 tries (about 25 s) whatever the cause, so a delivery
  // booked just before an outage ended unstarted, pending for ever.
  const bookedAt = patched(BOOKING_CHECK_OUTLASTS_OUTAGES) ? workflowInfo().startTime.toISOString() : undefined;
  const bookingRetry: RetryPolicy = bookedAt
    ? { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' }
    : { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumAttempts: 8 };
  const bookingOptions = { startToCloseTimeout: '10 seconds', retry: bookingRetry } as const;
  // Local since BEGIN_LOCALLY: the first step then costs no round trip through the server, and
  // the workflow finds its row sooner. Histories from before the patch replay the activity.
  const booking = patched(BEGIN_LOCALLY)
    ? proxyLocalActivities<Activities>(bookingOptions)
    : proxyActivities<Activities>(bookingOptions);
  // Outages are retried with backoff; a decline comes back as a result, not an error.
  const gateway = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: `${t.debitRetryInitialSeconds ?? 2} seconds`, backoffCoefficient: 2, maximumAttempts: 5 },
  });
  const webhooks = proxyActivities<Activities>(webhookActivityOptions(t));
  // Hand-over codes are texted until the SMS provider takes them: its outage must hold up neither
  // the debit nor dispatch. An attempt after the delivery has ended sends nothing.
  const texting = proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  });

  let status: DeliveryStatus = 'pending';
  let paymentStatus: PaymentStatus = 'pending';
  let riderId: string | null = null;
  let stopsCompleted = 0;
  let accepting = false;
  // An accept whose status change is being written (ACCEPT_IN_ONE_STEP): the status moves only
  // when the write is done, so a cancel waits for it rather than overtake it.
  let acceptWriting = false;
  let settled: { state: 'paid' | 'failed'; reason?: string } | undefined;
  const outstandingWebhooks = new Set<Promise<void>>();

  const snapshot = (): DeliveryState => ({
    status,
    paymentStatus,
    riderId,
    stopsTotal: input.stops.length,
    stopsCompleted,
    webhooksOutstanding: outstandingWebhooks.size,
  });

  // Writes to the read model go one after another, in the order the workflow decided them.
  let writes: Promise<unknown> = Promise.resolve();
  function inOrder<T>(write: () => Promise<T>): Promise<T> {
    const run = writes.then(write);
    writes = run.catch(() => undefined);
    return run;
  }

  function sendWebhook(eventId: string): void {
    // Not awaited: a partner's slow endpoint never holds up the delivery. The activity records
    // every attempt and the final outcome itself.
    const sending: Promise<void> = webhooks
      .sendWebhook({ eventId })
      .catch(() => undefined)
      .finally(() => outstandingWebhooks.delete(sending));
    outstandingWebhooks.add(sending);
  }

  /** Every transition: decided here, recorded in Postgres, then told to the partner. */
  async function transition(to: DeliveryStatus, action?: RiderAction): Promise<void> {
    status = to;
    upsertSearchAttributes([{ key: DeliveryStatusKey, value: to }]);
    const at = new Date().toISOString();
    const { eventId } = await inOrder(() =>
      db.recordTransition({
        deliveryId: input.deliveryId,
        status: to,
        riderId: action?.riderId ?? riderId,
        lat: action?.lat ?? null,
        lng: action?.lng ?? null,
        at,
      }),
    );
    if (eventId) sendWebhook(eventId);
  }

  const refuse = (type: string, message: string, details: Record<string, unknown> = {}) =>
    ApplicationFailure.create({ type, message, details: [{ status, ...details }], nonRetryable: true });

  function requireRider(action: RiderAction): void {
    if (riderId === null || action.riderId !== riderId) throw refuse(FAILURE.notYourJob, 'This job is not held by this rider');
  }

  function requireStatus(expected: DeliveryStatus, what: string): void {
    if (status !== expected) throw refuse(FAILURE.invalidTransition, `Cannot ${what} while the delivery is ${status}`);
  }

  function requireCancellable(): void {
    if (status !== 'cancelled' && !CANCELLABLE.includes(status)) {
      throw refuse(FAILURE.invalidTransition, `A delivery that is ${status} can no longer be cancelled`);
    }
  }

  function requireProof(proof: HandoverProof): void {
    if (input.verificationMethod === 'otp' && proof.kind !== 'otp') {
      throw refuse(FAILURE.verificationFailed, 'The recipient’s code is required');
    }
    if (input.verificationMethod === 'photo' && proof.kind !== 'photo') {
      throw refuse(FAILURE.verificationFailed, 'A photo of the hand-over is required');
    }
  }

  setHandler(stateQuery, snapshot);

  setHandler(paymentSettledSignal, (result) => {
    if (paymentStatus === 'pending' && settled === undefined) settled = result;
  });

  /** Claims the rider and records `accepted` in one write; the status moves once it is done. */
  async function acceptInOneStep(action: RiderAction): Promise<DeliveryState> {
    acceptWriting = true;
    try {
      const { claimed, eventId } = await inOrder(() =>
        db.acceptJob({
          deliveryId: input.deliveryId,
          riderId: action.riderId,
          lat: action.lat ?? null,
          lng: action.lng ?? null,
          at: new Date().toISOString(),
        }),
      );
      if (!claimed) throw refuse(FAILURE.conflict, 'The rider already holds another job');
      status = 'accepted';
      riderId = action.riderId;
      upsertSearchAttributes([{ key: DeliveryStatusKey, value: status }]);
      if (eventId) sendWebhook(eventId);
      return snapshot();
    } finally {
      acceptWriting = false;
    }
  }

  setHandler(
    acceptUpdate,
    async (action) => {
      accepting = true;
      try {
        if (patched(ACCEPT_IN_ONE_STEP)) return await acceptInOneStep(action);
        // Histories from before the patch: claim, then record.
        if (!(await db.claimRider({ deliveryId: input.deliveryId, riderId: action.riderId }))) {
          throw refuse(FAILURE.conflict, 'The rider already holds another job');
        }
        if (status !== 'pending') {
          // Cancelled or expired while the rider was being claimed.
          await db.releaseRider({ deliveryId: input.deliveryId, riderId: action.riderId });
          throw refuse(FAILURE.conflict, 'The job is no longer available');
        }
        riderId = action.riderId;
        await transition('accepted', action);
        return snapshot();
      } finally {
        accepting = false;
      }
    },
    {
      validator: (_action: RiderAction) => {
        // While another rider's accept is being written the job is still `pending`, as details say.
        if (accepting) throw refuse(FAILURE.conflict, 'Another rider is taking this job');
        if (status !== 'pending') throw refuse(FAILURE.conflict, 'The job is no longer available');
      },
    },
  );

  setHandler(
    pickupUpdate,
    async (action) => {
      await transition('picked_up', action);
      return snapshot();
    },
    {
      validator: (action) => {
        requireRider(action);
        requireStatus('accepted', 'pick up');
      },
    },
  );

  setHandler(
    departUpdate,
    async (action) => {
      await transition('in_transit', action);
      return snapshot();
    },
    {
      validator: (action) => {
        requireRider(action);
        requireStatus('picked_up', 'depart');
      },
    },
  );

  setHandler(
    completeStopUpdate,
    async (action) => {
      stopsCompleted += 1;
      const at = new Date().toISOString();
      await inOrder(() =>
        db.recordStopHandover({
          deliveryId: input.deliveryId,
          index: action.index,
          at,
          photoKey: action.proof.kind === 'photo' ? action.proof.storageKey : null,
        }),
      );
      return snapshot();
    },
    {
      validator: (action) => {
        requireRider(action);
        requireStatus('in_transit', 'complete a stop');
        if (action.index !== stopsCompleted) {
          throw refuse(FAILURE.invalidTransition, `Stops are handed over in order; next is stop ${stopsCompleted}`, {
            next_stop: stopsCompleted < input.stops.length ? stopsCompleted : null,
          });
        }
        requireProof(action.proof);
      },
    },
  );

  setHandler(
    deliverUpdate,
    async (action) => {
      await transition('delivered', action);
      return snapshot();
    },
    {
      validator: (action) => {
        requireRider(action);
        requireStatus('in_transit', 'deliver');
        if (stopsCompleted < input.stops.length) {
          throw refuse(FAILURE.invalidTransition, 'Every additional stop must be handed over first', {
            next_stop: stopsCompleted,
          });
        }
        requireProof(action.proof);
      },
    },
  );

  setHandler(
    cancelUpdate,
    async () => {
      if (acceptWriting) {
        // An accept is being written: cancel what it leaves (an accepted job is still cancellable).
        await condition(() => !acceptWriting);
        requireCancellable();
      }
      // Cancelling a cancelled delivery answers it again (DESIGN section 9).
      if (status !== 'cancelled') await transition('cancelled');
      // The API answers with the delivery as recorded: a repeat that arrives while the first
      // cancel is still being written waits for that write, or it would be answered `pending`.
      else if (patched(CANCEL_ANSWERS_RECORDED)) await writes;
      return snapshot();
    },
    { validator: requireCancellable },
  );

  /**
   * The debit's 5 tries are the network's budget. Since DEBIT_OUTLASTS_STORE_OUTAGES a round
   * whose last try failed on our own Postgres starts again: before, a Postgres outage that outlasted
   * the tries (about 30 s) marked the payment `failed` though nobody had declined it.
   */
  async function requestDebit() {
    for (;;) {
      try {
        return await gateway.requestDebit({ deliveryId: input.deliveryId });
      } catch (error) {
        if (!(failedOnOurStore(error) && patched(DEBIT_OUTLASTS_STORE_OUTAGES))) throw error;
      }
    }
  }

  async function collectPayment(): Promise<void> {
    let result: { state: PaymentStatus; reason?: string };
    try {
      result = await requestDebit();
    } catch {
      // A callback may have confirmed the debit while its request kept timing out: it knows better.
      result = settled ?? { state: 'failed', reason: 'The mobile network did not answer' };
    }
    let waited = 0;
    while (result.state === 'pending') {
      const confirmed = await condition(() => settled !== undefined, t.paymentPollSeconds * 1000);
      if (confirmed && settled) {
        result = settled;
        break;
      }
      waited += t.paymentPollSeconds;
      try {
        result = await gateway.checkDebit({ deliveryId: input.deliveryId });
      } catch {
        // Still unknown; keep waiting for the callback or the next poll.
      }
      if (result.state === 'pending' && waited >= PAYMENT_CONFIRM_LIMIT_SECONDS) {
        result = { state: 'failed', reason: 'The debit was not confirmed in time' };
      }
    }
    paymentStatus = result.state;
    upsertSearchAttributes([{ key: PaymentStatusKey, value: paymentStatus }]);
    const outcome = { deliveryId: input.deliveryId, state: result.state, reason: result.reason ?? null };
    await inOrder(() => db.recordPayment(outcome));
  }

  async function dispatch(): Promise<void> {
    if (input.mode === 'test') {
      await startChild(roboRiderWorkflow, {
        workflowId: `robo-rider-${input.deliveryId}`,
        taskQueue: workflowInfo().taskQueue,
        parentClosePolicy: ParentClosePolicy.TERMINATE,
        args: [
          {
            deliveryId: input.deliveryId,
            route: [input.pickup, ...input.stops, input.dropoff],
            stopsCount: input.stops.length,
            stepSeconds: t.roboRiderStepSeconds,
          },
        ],
      });
    }
    const deadline = Date.now() + t.dispatchTimeoutSeconds * 1000;
    let radiusKm = t.dispatchInitialRadiusKm;
    while (status === 'pending') {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        if (accepting) {
          await condition(() => !accepting);
          continue;
        }
        await transition('expired');
        return;
      }
      if (input.mode === 'live') {
        await db.offerToNearbyRiders({
          deliveryId: input.deliveryId,
          pickup: input.pickup,
          radiusKm,
          expiresAt: new Date(deadline).toISOString(),
        });
      }
      await condition(() => status !== 'pending', Math.min(t.dispatchWidenSeconds * 1000, remaining));
      radiusKm = Math.min(radiusKm * 2, t.dispatchMaxRadiusKm);
    }
  }

  // Since CODES_TEXTED_APART the first step only finds the booking row, and the codes go out beside
  // the debit: before, an SMS outage longer than this step's retries ended the delivery unstarted.
  const codesApart = input.verificationMethod === 'otp' && patched(CODES_TEXTED_APART);
  try {
    await booking.beginDelivery({
      deliveryId: input.deliveryId,
      ...(codesApart ? { textCodes: false } : {}),
      ...(bookedAt ? { bookedAt } : {}),
    });
  } catch {
    // The API could not commit the booking row after starting this workflow: nobody was told
    // this delivery exists, so there is nothing to dispatch, debit or report.
    return snapshot();
  }

  const payment = collectPayment();
  const codes = codesApart ? texting.textHandoverCodes({ deliveryId: input.deliveryId }).catch(() => undefined) : undefined;

  if (input.scheduledAt) {
    const untilDispatch = Date.parse(input.scheduledAt) - Date.now();
    if (untilDispatch > 0) await condition(() => status !== 'pending', untilDispatch);
  }
  if (status === 'pending') await dispatch();

  await condition(() => isTerminal(status));
  await payment;
  await codes;
  await writes;
  // Every webhook and message handler must finish before the workflow completes.
  await condition(() => outstandingWebhooks.size === 0 && allHandlersFinished());
  return snapshot();
}
