import { ApplicationFailure } from '@temporalio/activity';
import type { Activities } from '../../activities';
import type { CodeMatch } from '../../activities/handover-code-check';
import type { DebitResult } from '../../integrations/mobile-money/gateway';
import { debitReference } from '../../domain/debit-reference';
import { DEBIT_STORE_UNAVAILABLE, type DeliveryChange } from '../../workflows/messages';

/** How the fake Mobile Money network answers a debit request. */
export type DebitBehaviour =
  | { answer: DebitResult }
  /** Every try times out, as the sandbox's `…3333` numbers do. */
  | { outage: true }
  /** Our own Postgres fails the first `times` tries, then the network answers. */
  | { storeDownFor: number; then: DebitResult };

/**
 * Everything the delivery's activities did, as a partner, a rider and ops would see it in
 * Postgres: the activities below write here instead.
 */
export class FakeWorld {
  transitions: { status: string; riderId: string | null }[] = [];
  offers: { radiusKm: number; at: number; near?: { lat: number; lng: number }; exceptRiderId?: string | null }[] = [];
  /** Each time the job changed riders (`toRiderId` null: taken to be offered again). */
  reassignments: { fromRiderId: string | null; toRiderId: string | null }[] = [];
  /** Where a rider taken off a job last was. */
  formerPosition = { lat: 5.62, lng: -0.18 };
  /** Each outcome recorded; a fare change's debit names its `reference`. */
  payments: { state: string; reason: string | null; confirmed: boolean; reference?: string }[] = [];
  /** The reference of each debit request, in order (the booking's is the delivery id). */
  readonly debitRequests: string[] = [];
  /** The fare as it stands, in pesewas, as a change of places re-prices it. */
  totalFare = 1500;
  stopsHandedOver: number[] = [];
  webhooksSent: string[] = [];
  codeTries = 0;
  debitTries = 0;
  /** Which rider holds which job: a rider holds one at a time. */
  readonly riderJobs = new Map<string, string>();
  /** The hash of each drop's issued code, by position. */
  readonly issuedCodes = new Map<number, string>();
  /** Robo riders enlisted: each test-mode delivery the robo rider rides enlists one. */
  roboRidersEnlisted = 0;
  /** The API withdrew the booking before the workflow could claim it. */
  bookingWithdrawn = false;
  debit: DebitBehaviour = { answer: { state: 'paid' } };
  /** What a poll of the gateway answers. */
  debitCheck: DebitResult = { state: 'pending' };
  /** A poll of the gateway that does not answer, as a gateway in an outage. */
  debitCheckFails = false;
  /** The records the reconciliation corrected: the state before and after. */
  corrections: { from: string; to: string }[] = [];
  /** When each finished delivery ended (ms since the epoch), by id, for the retention round to redact. */
  readonly finishedAt = new Map<string, number>();
  /** The deliveries the retention round redacted, and each cutoff it was asked for. */
  readonly redacted: string[] = [];
  readonly cutoffsAsked: string[] = [];
  /** Hand-over codes of ended jobs still kept, for the retention round to remove. */
  endedJobCodes = 0;
  /** How long a rider's accept and other status changes take to write, so races can be arranged. */
  acceptWriteMs = 0;
  transitionWriteMs = 0;
  /** Each change written, in order. */
  readonly changes: DeliveryChange[] = [];
  /** When set, a change's write waits for it, and calls `onChangeWriting` first: a race with the write can be arranged. */
  changeGate: Promise<void> | null = null;
  onChangeWriting: (() => void) | null = null;
  /** The drops whose code was issued anew, each time, by position. */
  readonly reissuedCodes: number[][] = [];

  statuses(): string[] {
    return this.transitions.map((t) => t.status);
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Activities of the same shape as `createActivities`, over a FakeWorld instead of Postgres and the outside world. */
export function createFakeActivities(world: FakeWorld): Activities {
  return {
    async beginDelivery() {
      if (world.bookingWithdrawn) throw ApplicationFailure.nonRetryable('The booking was withdrawn', 'BookingNotFound');
    },
    async sweepOrphanedBookings() {
      return { found: 0, outcomes: {} };
    },
    async textHandoverCodes() {},
    async recordDeliveryChange({ deliveryId, change }) {
      world.onChangeWriting?.();
      if (world.changeGate) await world.changeGate;
      // As Postgres keeps it: a retried write finds its fare change and records nothing twice.
      const seen = world.changes.findIndex((c) => c.repricing && c.repricing.changeId === change.repricing?.changeId);
      if (seen < 0) world.changes.push(change);
      if (!change.repricing) return null;
      const seq = world.changes.filter((c) => c.repricing).findIndex((c) => c.repricing?.changeId === change.repricing?.changeId) + 1;
      const debitAmount = Math.max(0, change.repricing.fare.totalFare - world.totalFare);
      world.totalFare = change.repricing.fare.totalFare;
      return { seq, debitAmount, debitReference: debitAmount > 0 ? debitReference(deliveryId, seq) : null };
    },
    async reissueHandoverCodes({ positions }) {
      world.reissuedCodes.push(positions);
      for (const position of positions) world.issuedCodes.delete(position);
    },
    async recordTransition({ status, riderId }) {
      await pause(world.transitionWriteMs);
      // As Postgres keeps it: one event per status, so a write tried again (a local activity run
      // again after a slow workflow task) records nothing new.
      if (world.transitions.some((t) => t.status === status)) return { eventId: `event-${status}` };
      world.transitions.push({ status, riderId });
      if (['delivered', 'cancelled', 'expired'].includes(status) && riderId) world.riderJobs.delete(riderId);
      return { eventId: `event-${status}` };
    },
    async acceptJob({ deliveryId, riderId }) {
      await pause(world.acceptWriteMs);
      const held = world.riderJobs.get(riderId);
      if (held && held !== deliveryId) return { claimed: false, eventId: null };
      world.riderJobs.set(riderId, deliveryId);
      world.transitions.push({ status: 'accepted', riderId });
      return { claimed: true, eventId: 'event-accepted' };
    },
    async reassignJob({ deliveryId, fromRiderId, toRiderId }) {
      if (toRiderId !== null) {
        const held = world.riderJobs.get(toRiderId);
        if (held && held !== deliveryId) return { claimed: false, formerPosition: null };
        world.riderJobs.set(toRiderId, deliveryId);
      }
      if (fromRiderId !== null) world.riderJobs.delete(fromRiderId);
      world.reassignments.push({ fromRiderId, toRiderId });
      return { claimed: true, formerPosition: fromRiderId ? world.formerPosition : null };
    },
    async watchTheStreet() {
      return { ridersSetOffline: 0, flagged: 0, cleared: 0, needingAttention: 0 };
    },
    async redactFinishedDeliveries({ cutoff, limit }) {
      world.cutoffsAsked.push(cutoff);
      // As Postgres answers it: the oldest not yet redacted that ended before the cutoff.
      const found = [...world.finishedAt]
        .filter(([id, at]) => at < Date.parse(cutoff) && !world.redacted.includes(id))
        .sort(([, a], [, b]) => a - b)
        .slice(0, limit)
        .map(([id]) => id);
      world.redacted.push(...found);
      return { found: found.length, redacted: found.length };
    },
    async forgetShortLivedCopies() {
      const codeTexts = world.endedJobCodes;
      world.endedJobCodes = 0;
      return { codeTexts, codeHashes: codeTexts, photoUploads: 0 };
    },
    async recordStopHandover({ index }) {
      // As Postgres keeps it: a stop is handed over once, however often its write is tried.
      if (world.stopsHandedOver.includes(index)) return;
      world.stopsHandedOver.push(index);
    },
    async offerToNearbyRiders({ radiusKm, pickup, exceptRiderId }) {
      world.offers.push({ radiusKm, at: Date.now(), near: pickup, exceptRiderId });
      return 0;
    },
    async matchHandoverCode({ position, codeHash }): Promise<CodeMatch> {
      world.codeTries += 1;
      const issued = world.issuedCodes.get(position);
      if (issued === undefined) return 'not_issued';
      return issued === codeHash ? 'match' : 'mismatch';
    },
    async requestDebit({ deliveryId, reference }) {
      world.debitRequests.push(reference ?? deliveryId);
      world.debitTries += 1;
      const behaviour = world.debit;
      if ('outage' in behaviour) throw ApplicationFailure.retryable('The network did not answer', 'GatewayUnavailable');
      if ('storeDownFor' in behaviour) {
        if (world.debitTries <= behaviour.storeDownFor) throw ApplicationFailure.retryable('Postgres is down', DEBIT_STORE_UNAVAILABLE);
        return behaviour.then;
      }
      return behaviour.answer;
    },
    async checkDebit() {
      if (world.debitCheckFails) throw ApplicationFailure.retryable('The gateway did not answer', 'GatewayUnavailable');
      return world.debitCheck;
    },
    async recordPayment({ state, reason, confirmed, reference }) {
      world.payments.push({ state, reason, confirmed, ...(reference !== undefined && { reference }) });
    },
    async debitsToReconcile() {
      return [];
    },
    async reconcileDebit() {
      const recorded = world.payments.at(-1);
      const word = world.debitCheck;
      if (recorded && word.state !== 'pending' && word.state !== recorded.state) {
        world.corrections.push({ from: recorded.state, to: word.state });
        world.payments.push({ state: word.state, reason: word.reason ?? null, confirmed: true });
        return { state: word.state, corrected: true };
      }
      return { state: word.state, corrected: false };
    },
    async sendWebhook({ eventId }) {
      world.webhooksSent.push(eventId);
    },
    async enlistRoboRider() {
      world.roboRidersEnlisted += 1;
      return 'robo-rider';
    },
    async moveRoboRider() {},
    async roboRiderAct() {
      return true;
    },
  };
}
