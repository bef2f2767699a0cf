import { condition, upsertSearchAttributes } from '@temporalio/workflow';
import type { LatLng } from '../../domain/geo';
import { ACTIVE_FOR_RIDER, FINAL_DROP, isTerminal, type DeliveryStatus, type PaymentStatus } from '../../domain/lifecycle';
import {
  anotherRiderAccepting,
  handoverInProgress,
  placesBeingChanged,
  refusalFor,
  riderBusy,
  riderNotFree,
  routeChangedMeanwhile,
  REFUSAL,
  type DeliverySnapshot,
} from '../../domain/steps';
import {
  DeliveryStatusKey,
  NeedsAttentionKey,
  PaymentStatusKey,
  type DeliveryState,
  type DeliveryWorkflowInput,
  type HandoverAction,
  type HandoverProof,
  type DeliveryChange,
  type RiderAction,
  type StopHandoverAction,
} from '../messages';
import type { DeliveryActivities } from './activities';
import { changesPlaces, dropsTouched, routeAfter, sameRoute } from '../../domain/delivery-change';
import { parseDebitReference } from '../../domain/debit-reference';
import { HandoverCodeLockout } from './handover-code-lockout';
import { Recorder } from './recorder';
import { codeFailure, failureOf, throwIfRefused } from './refusal';

export type PaymentOutcome = { state: 'paid' | 'failed'; reason?: string };

export type DebitAnswer = { state: PaymentStatus; reason?: string };

/** What the workflow records: the outcome, and whether the gateway gave its word on it. */
export type DebitOutcome = DebitAnswer & { confirmed: boolean };

/** Work a change of state starts beside the delivery, kept in files of their own. */
export interface BesideTheDelivery {
  /** Offers a job taken from its rider to riders near `near` until one takes it (dispatch.ts). */
  offerAgain(delivery: Delivery, exceptRiderId: string | null, near: LatLng): Promise<void>;
  /** Debits a fare change's difference, as the booking's debit is collected (payment.ts). */
  collectChangeDebit(delivery: Delivery, reference: string): Promise<void>;
}

/**
 * One delivery's state and the rules that move it: the message handlers call in here. Checks
 * (`check…`) are synchronous, for update validators, so a refused message adds nothing to history;
 * changes are recorded in Postgres (Recorder) before their webhook is sent.
 */
export class Delivery {
  status: DeliveryStatus = 'pending';
  paymentStatus: PaymentStatus = 'pending';
  riderId: string | null = null;
  stopsCompleted = 0;
  /** A rider's accept is being written: the status moves only once it is, so a cancel waits for it. */
  accepting = false;
  /** The gateway's confirmation, when its callback (or the sandbox network) has sent one. */
  confirmedPayment: PaymentOutcome | undefined;
  /** Whether the recorded outcome is the gateway's word. */
  paymentConfirmed = false;
  /** A hand-over's proof is being checked or its state changed: another waits its turn (refused). */
  handingOver = false;
  /** The rider has gone silent (the street watch said so): `NeedsAttention` is set on this workflow. */
  needsAttention = false;
  /** Pickup, each stop, final drop-off: a partner's change of places moves them while pending. */
  route: LatLng[];
  /** A change of places is being written: another is refused until it is (the API sends it again). */
  changingPlaces = false;
  /** Fare changes' debits by reference: the confirmation their callback sent, and the outcome recorded. */
  readonly changeDebits = new Map<string, { confirmed?: PaymentOutcome; recorded?: DebitOutcome }>();
  readonly recorder: Recorder;
  private readonly codes: HandoverCodeLockout;

  constructor(
    readonly input: DeliveryWorkflowInput,
    readonly acts: DeliveryActivities,
    private readonly beside: BesideTheDelivery,
  ) {
    this.recorder = new Recorder(acts);
    this.route = [input.pickup, ...input.stops, input.dropoff];
    const t = input.timings;
    this.codes = new HandoverCodeLockout(input.deliveryId, { maxWrong: t.otpMaxAttempts, lockSeconds: t.otpLockSeconds }, acts);
  }

  get isFinished(): boolean {
    return isTerminal(this.status);
  }

  snapshot(): DeliveryState {
    return {
      status: this.status,
      paymentStatus: this.paymentStatus,
      riderId: this.riderId,
      stopsTotal: this.input.stops.length,
      stopsCompleted: this.stopsCompleted,
      webhooksOutstanding: this.recorder.webhooksOutstanding,
    };
  }

  // Checks, for the update validators: the rules of domain/steps.ts, on this state.

  /** The delivery as the step rules see it. */
  private rulesView(): DeliverySnapshot {
    const { stops, verificationMethod } = this.input;
    return { status: this.status, stopsCompleted: this.stopsCompleted, stopsTotal: stops.length, verificationMethod, riderId: this.riderId };
  }

  checkAccept(): void {
    // While another rider's accept is being written the job is still `pending`, as details say.
    if (this.accepting) throw failureOf(anotherRiderAccepting(this.status));
    // A change of places is refused during an accept, and an accept during one: the rider takes
    // the job as it will be, priced as it will be.
    if (this.changingPlaces) throw failureOf(placesBeingChanged(this.status));
    throwIfRefused(refusalFor(this.rulesView(), { kind: 'accept' }));
  }

  checkStep(kind: 'pickup' | 'depart', action: RiderAction): void {
    throwIfRefused(refusalFor(this.rulesView(), { kind, riderId: action.riderId }));
  }

  /** Stops are handed over in array order, each with the proof the booking asked for, one at a time. */
  checkStop(action: StopHandoverAction): void {
    this.stopRules(action);
    this.checkCodeLock(action.proof, action.index);
    this.checkOneHandover();
  }

  checkDeliver(action: HandoverAction): void {
    this.deliverRules(action);
    this.checkCodeLock(action.proof, FINAL_DROP);
    this.checkOneHandover();
  }

  private stopRules({ riderId, index, proof }: StopHandoverAction): void {
    throwIfRefused(refusalFor(this.rulesView(), { kind: 'complete_stop', riderId, index, proof: proof.kind }));
  }

  private deliverRules({ riderId, proof }: HandoverAction): void {
    throwIfRefused(refusalFor(this.rulesView(), { kind: 'deliver', riderId, proof: proof.kind }));
  }

  /**
   * A hand-over being taken is not yet in `stopsCompleted` or `status` (its proof may be checked
   * first): another that arrives meanwhile, even in the same activation, is refused, not taken twice.
   */
  private checkOneHandover(): void {
    if (this.handingOver) throw failureOf(handoverInProgress(this.status));
  }

  checkCancel(): void {
    throwIfRefused(refusalFor(this.rulesView(), { kind: 'cancel' }));
  }

  /**
   * Only a partner's manual sandbox rider's job expires on request; an accept being written is let
   * finish first, as the dispatch deadline does (the expiry is then refused: the job is accepted).
   */
  checkExpire(): void {
    if (!this.ridesInManualSandbox) {
      throw failureOf({ kind: REFUSAL.invalidTransition, message: 'Only a manual sandbox delivery expires on request', details: { status: this.status } });
    }
    if (this.accepting) throw failureOf(anotherRiderAccepting(this.status));
    throwIfRefused(refusalFor(this.rulesView(), { kind: 'expire' }));
  }

  /** A test-mode job its partner drives step by step (domain/sandbox-rider.ts): no robo rider rides it. */
  get ridesInManualSandbox(): boolean {
    return this.input.mode === 'test' && this.input.sandboxRider === 'manual';
  }

  checkReassign({ riderId }: { riderId: string | null }): void {
    if (this.input.mode === 'test') {
      throw failureOf({ kind: REFUSAL.invalidTransition, message: 'A test-mode delivery is ridden by the robo rider', details: { status: this.status } });
    }
    if (this.accepting) throw failureOf(anotherRiderAccepting(this.status));
    throwIfRefused(refusalFor(this.rulesView(), { kind: 'reassign', toRiderId: riderId }));
  }

  /**
   * Drops already handed over, or being handed over now, take no change of recipient; places change
   * only while pending, one change at a time, and only at the price of the route as it stands.
   */
  checkChange(change: DeliveryChange): void {
    const places = changesPlaces(change);
    throwIfRefused(refusalFor(this.rulesView(), { kind: 'change_booking', stops: change.stops.map((s) => s.index), places }));
    if (places && this.accepting) throw failureOf(anotherRiderAccepting(this.status));
    if (places && (this.changingPlaces || (change.repricing && !sameRoute(change.repricing.pricedFrom, this.route)))) {
      throw failureOf(routeChangedMeanwhile(this.status));
    }
    if (!this.handingOver) return;
    const beingHandedOver = this.stopsCompleted < this.input.stops.length ? this.stopsCompleted : FINAL_DROP;
    if (dropsTouched(change).includes(beingHandedOver)) throw failureOf(handoverInProgress(this.status));
  }

  /** A drop locked after wrong codes, or busy comparing another, refuses a code before it is compared. */
  private checkCodeLock(proof: HandoverProof, position: number): void {
    const refused = proof.kind === 'otp' ? this.codes.refusalNow(position) : null;
    if (refused) throw codeFailure(refused, this.status);
  }

  // Changes, for the handlers and the workflow's own timers.

  /** Every transition: decided here, recorded in Postgres, then told to the partner. */
  async moveTo(to: DeliveryStatus, action?: RiderAction, photoKey?: string): Promise<DeliveryState> {
    this.status = to;
    upsertSearchAttributes([{ key: DeliveryStatusKey, value: to }]);
    // A job that moves has been heard from (or has ended): it needs no operator now.
    this.markAttention(false);
    const at = new Date().toISOString();
    const { eventId } = await this.recorder.write(() =>
      this.acts.db.recordTransition({
        deliveryId: this.input.deliveryId,
        status: to,
        riderId: action?.riderId ?? this.riderId,
        lat: action?.lat ?? null,
        lng: action?.lng ?? null,
        at,
        // The accepted hand-over's photo becomes the drop's, with the write of its status.
        ...(photoKey !== undefined && { photoKey }),
      }),
    );
    this.recorder.sendWebhook(eventId);
    return this.snapshot();
  }

  /** Claims the rider and records `accepted` in one write; first rider wins. */
  async accept(action: RiderAction): Promise<DeliveryState> {
    if (this.status !== 'pending') return this.takeOver(action);
    this.accepting = true;
    try {
      const { claimed, eventId } = await this.recorder.write(() =>
        this.acts.db.acceptJob({
          deliveryId: this.input.deliveryId,
          riderId: action.riderId,
          lat: action.lat ?? null,
          lng: action.lng ?? null,
          at: new Date().toISOString(),
        }),
      );
      if (!claimed) throw failureOf(riderBusy(this.status));
      this.status = 'accepted';
      this.riderId = action.riderId;
      upsertSearchAttributes([{ key: DeliveryStatusKey, value: this.status }]);
      this.recorder.sendWebhook(eventId);
      return this.snapshot();
    } finally {
      this.accepting = false;
    }
  }

  /**
   * A rider takes a job an operator offered again: it keeps its status and sends no webhook, and
   * the rider carries on from where the job stands (a picked-up parcel is next taken on its way).
   */
  private async takeOver(action: RiderAction): Promise<DeliveryState> {
    this.accepting = true;
    try {
      const { claimed } = await this.recorder.write(() =>
        this.acts.db.reassignJob({ deliveryId: this.input.deliveryId, fromRiderId: null, toRiderId: action.riderId }),
      );
      if (!claimed) throw failureOf(riderBusy(this.status));
      this.riderId = action.riderId;
      return this.snapshot();
    } finally {
      this.accepting = false;
    }
  }

  /**
   * An operator's answer to a rider gone silent: the job goes to another free rider, or, with no
   * rider named, is offered again near where it stands. The status stays, so the partner gets no
   * webhook; the record and the tracking view show the new rider.
   */
  async reassign({ riderId }: { riderId: string | null }): Promise<DeliveryState> {
    const former = this.riderId;
    const { claimed, formerPosition } = await this.recorder.write(() =>
      this.acts.db.reassignJob({ deliveryId: this.input.deliveryId, fromRiderId: former, toRiderId: riderId }),
    );
    if (!claimed) throw failureOf(riderNotFree(this.status));
    this.riderId = riderId;
    this.markAttention(false);
    if (riderId === null) {
      // Before the pickup the parcel is at the pickup; after it, with the silent rider.
      const near: LatLng = this.status === 'accepted' || !formerPosition ? this.input.pickup : formerPosition;
      this.recorder.track(this.beside.offerAgain(this, former, near));
    }
    return this.snapshot();
  }

  /**
   * A partner's change: written to Postgres (where the rider's app and offers read it) in one step,
   * with the new fare of a route priced again; a higher fare's difference is debited beside the
   * delivery, like the booking's. A drop whose phone changed on an `otp` delivery gets a new code,
   * and its old one stops working. No status changes, so no webhook.
   */
  async change(change: DeliveryChange): Promise<DeliveryState> {
    const places = changesPlaces(change);
    this.changingPlaces ||= places;
    let debitReference: string | null = null;
    try {
      const fareChange = await this.recorder.write(() => this.acts.db.recordDeliveryChange({ deliveryId: this.input.deliveryId, change }));
      debitReference = fareChange?.debitReference ?? null;
      if (places) this.route = routeAfter(this.route, change);
    } finally {
      if (places) this.changingPlaces = false;
    }
    if (debitReference) this.recorder.track(this.beside.collectChangeDebit(this, debitReference));
    if (this.input.verificationMethod === 'otp') {
      const positions = [
        ...change.stops.filter((s) => s.recipientPhone !== undefined).map((s) => s.index),
        ...(change.recipientPhone !== undefined ? [FINAL_DROP] : []),
      ];
      if (positions.length > 0) await this.acts.texting.reissueHandoverCodes({ deliveryId: this.input.deliveryId, positions });
    }
    return this.snapshot();
  }

  /** The street watch's word: the search attribute ops filter on follows it, while the job is under way. */
  markAttention(needed: boolean): void {
    const wanted = needed && ACTIVE_FOR_RIDER.includes(this.status);
    if (wanted === this.needsAttention) return;
    this.needsAttention = wanted;
    upsertSearchAttributes([{ key: NeedsAttentionKey, value: wanted }]);
  }

  async completeStop(action: StopHandoverAction): Promise<DeliveryState> {
    await this.handOver(action.proof, action.index, () => this.stopRules(action), () => {
      this.stopsCompleted += 1;
    });
    const at = new Date().toISOString();
    await this.recorder.write(() =>
      this.acts.db.recordStopHandover({
        deliveryId: this.input.deliveryId,
        index: action.index,
        at,
        photoKey: action.proof.kind === 'photo' ? action.proof.storageKey : null,
        lat: action.lat ?? null,
        lng: action.lng ?? null,
      }),
    );
    return this.snapshot();
  }

  async deliver(action: HandoverAction): Promise<DeliveryState> {
    let delivered: Promise<DeliveryState> | undefined;
    await this.handOver(action.proof, FINAL_DROP, () => this.deliverRules(action), () => {
      // moveTo sets the status before it writes: the hand-over is taken from here on.
      delivered = this.moveTo('delivered', action, action.proof.kind === 'photo' ? action.proof.storageKey : undefined);
    });
    return delivered as Promise<DeliveryState>;
  }

  /**
   * Takes one hand-over: marked as under way before anything is awaited (so a second one is
   * refused by its validator), its proof checked, then `take` changes the state.
   */
  private async handOver(proof: HandoverProof, position: number, rules: () => void, take: () => void): Promise<void> {
    this.handingOver = true;
    try {
      await this.verify(proof, position, rules);
      take();
    } finally {
      this.handingOver = false;
    }
  }

  async cancel(): Promise<DeliveryState> {
    if (this.accepting) {
      // An accept is being written: cancel what it leaves (an accepted job is still cancellable).
      await condition(() => !this.accepting);
      this.checkCancel();
    }
    if (this.status !== 'cancelled') return this.moveTo('cancelled');
    // A repeat is answered with the delivery as recorded: one that arrives while the first cancel
    // is still being written waits for that write, or the API would answer `pending`.
    await this.recorder.writesDone();
    return this.snapshot();
  }

  /**
   * The first confirmation settles a pending debit. One that arrives once the outcome is recorded
   * and says otherwise, or confirms an outcome the gateway never gave its word on, is checked
   * with the gateway, and the record follows the gateway.
   */
  confirmPayment({ reference, ...outcome }: PaymentOutcome & { reference?: string }): void {
    if (reference !== undefined && parseDebitReference(reference)?.changeSeq) return this.confirmChangeDebit(reference, outcome);
    if (this.paymentStatus === 'pending') {
      this.confirmedPayment ??= outcome;
      return;
    }
    if (outcome.state !== this.paymentStatus || !this.paymentConfirmed) this.recorder.track(this.recheckPayment());
  }

  async recordPayment(outcome: DebitOutcome): Promise<void> {
    this.paymentStatus = outcome.state;
    this.paymentConfirmed = outcome.confirmed;
    upsertSearchAttributes([{ key: PaymentStatusKey, value: outcome.state }]);
    const record = { deliveryId: this.input.deliveryId, state: outcome.state, reason: outcome.reason ?? null, confirmed: outcome.confirmed };
    await this.recorder.write(() => this.acts.db.recordPayment(record));
  }

  /** The same for a fare change's debit: its record shows in the delivery's `fare_changes`. */
  private confirmChangeDebit(reference: string, outcome: PaymentOutcome): void {
    const debit = this.changeDebits.get(reference) ?? {};
    this.changeDebits.set(reference, debit);
    if (!debit.recorded) {
      debit.confirmed ??= outcome;
      return;
    }
    if (outcome.state !== debit.recorded.state || !debit.recorded.confirmed) {
      this.recorder.track(this.acts.reconciliation.reconcileDebit({ reference, trigger: 'late-confirmation' }).then(() => undefined));
    }
  }

  async recordChangePayment(reference: string, outcome: DebitOutcome): Promise<void> {
    const debit = this.changeDebits.get(reference) ?? {};
    debit.recorded = outcome;
    this.changeDebits.set(reference, debit);
    const record = { deliveryId: this.input.deliveryId, reference, state: outcome.state, reason: outcome.reason ?? null, confirmed: outcome.confirmed };
    await this.recorder.write(() => this.acts.db.recordPayment(record));
  }

  private async recheckPayment(): Promise<void> {
    // After the record's own write, so the check compares against what was recorded.
    await this.recorder.writesDone();
    const word = await this.acts.reconciliation.reconcileDebit({ deliveryId: this.input.deliveryId, trigger: 'late-confirmation' });
    if (word.state === 'pending') return;
    this.paymentStatus = word.state;
    this.paymentConfirmed = true;
    upsertSearchAttributes([{ key: PaymentStatusKey, value: word.state }]);
  }

  /**
   * Compares a code with the issued one; a refusal is answered as the validator's would be. The
   * step is checked again after the comparison, which awaits an activity.
   */
  private async verify(proof: HandoverProof, position: number, recheck: () => void): Promise<void> {
    if (proof.kind !== 'otp') return;
    const refused = await this.codes.check(position, proof.codeHash);
    if (refused) throw codeFailure(refused, this.status);
    recheck();
  }
}
