import type { WorkflowHandle } from '@temporalio/client';
import * as deliveries from '../../db/deliveries';
import * as handoverCodes from '../../db/handover-codes';
import * as handoverPhotos from '../../db/handover-photos';
import * as riders from '../../db/riders';
import type { DeliveryParts } from '../../domain/delivery-view';
import type { LatLng } from '../../domain/geo';
import { FINAL_DROP, type DeliveryStatus } from '../../domain/lifecycle';
import { MANUAL_SANDBOX_RIDER_NAME, sandboxProof, type SandboxProof, type SandboxStep } from '../../domain/sandbox-rider';
import { noLongerAvailable, refusalFor, type Step } from '../../domain/steps';
import {
  acceptUpdate,
  completeStopUpdate,
  deliverUpdate,
  departUpdate,
  expireUpdate,
  pickupUpdate,
  type DeliveryState,
  type RiderAction,
} from '../../workflows/messages';
import { snapshotOf } from './delivery-snapshot';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import { refusalError, throwIfRefused } from '../refusals';
import { sendDeliveryUpdate, type WhenEnded } from '../temporal/delivery-updates';

/**
 * The steps a partner takes for the manual sandbox rider of a test-mode delivery. Each is the
 * update a rider app's request becomes (or, for `expire`, the dispatch deadline's transition), so
 * the delivery moves, is recorded and sends its webhook exactly as with a real rider; each is
 * refused first on the read model by the step rules (domain/steps.ts), as the rider API does.
 */
export function createSandboxSteps(deps: AppDeps) {
  const { orm, photos } = deps;
  const statusOf = (deliveryId: string) => () => deliveries.statusOf(orm.em.fork(), deliveryId);

  /** The proof the booking asks for, brought by the sandbox rider itself (as the robo rider does). */
  async function proofFor({ delivery }: DeliveryParts, position: number): Promise<SandboxProof> {
    const em = orm.em.fork();
    const codeHash = delivery.verificationMethod === 'otp' ? await handoverCodes.issuedHash(em, delivery.id, position) : null;
    // Stored and recorded as a rider's upload is, so the proof's photo link serves it.
    const photoKey = delivery.verificationMethod === 'photo' ? await handoverPhotos.keepSandboxPhoto(em, photos, delivery.id, position) : null;
    const proof = sandboxProof(delivery.verificationMethod, { codeHash, photoKey });
    // Codes are texted as the workflow starts: none yet means it has only just begun.
    if (proof === null) throw ApiError.unavailable('The hand-over code is not issued yet; try again shortly');
    return proof;
  }

  /** Moves the sandbox rider to where it acts (as a rider app's ping would), then sends the update. */
  async function act(
    deliveryId: string,
    riderId: string,
    at: LatLng,
    send: (handle: WorkflowHandle, who: RiderAction) => Promise<DeliveryState>,
    whenEnded?: WhenEnded,
  ): Promise<void> {
    await riders.moveRobo(orm.em.fork(), riderId, at);
    const who = { riderId, lat: at.lat, lng: at.lng };
    await sendDeliveryUpdate(deps, deliveryId, (handle) => send(handle, who), statusOf(deliveryId), whenEnded);
  }

  return {
    /** Takes `step` for the delivery of `parts`, a manual sandbox delivery of the caller's. */
    async take(parts: DeliveryParts, step: SandboxStep): Promise<void> {
      const { delivery, stops } = parts;
      if (delivery.sandboxRider !== 'manual') {
        throw ApiError.badRequest('The robo rider rides this delivery: book with the header `Sandbox-Rider: manual` to take its steps yourself', {
          status: delivery.status,
          sandbox_rider: 'robo',
        });
      }
      const snapshot = snapshotOf(parts);
      const riderId = riders.sandboxRiderId(delivery.id);
      const check = (rule: Step) => throwIfRefused(refusalFor(snapshot, rule));
      const pickup = { lat: delivery.pickupLat, lng: delivery.pickupLng };

      switch (step) {
        case 'accept': {
          check({ kind: 'accept' });
          await riders.enlistRobo(orm.em.fork(), { id: riderId, name: MANUAL_SANDBOX_RIDER_NAME, position: pickup });
          // Expired or cancelled after the read above: no longer available, as for a rider (409).
          const ended: WhenEnded = (status) => refusalError(noLongerAvailable(status as DeliveryStatus));
          return act(delivery.id, riderId, pickup, (h, who) => h.executeUpdate(acceptUpdate, { args: [who] }), ended);
        }
        case 'pickup':
          check({ kind: 'pickup', riderId });
          return act(delivery.id, riderId, pickup, (h, who) => h.executeUpdate(pickupUpdate, { args: [who] }));
        case 'depart':
          check({ kind: 'depart', riderId });
          return act(delivery.id, riderId, pickup, (h, who) => h.executeUpdate(departUpdate, { args: [who] }));
        case 'complete_stop': {
          // The next stop in visiting order: the only one the rules take.
          const index = snapshot.stopsCompleted;
          check({ kind: 'complete_stop', riderId, index, proof: delivery.verificationMethod });
          const proof = await proofFor(parts, index);
          const stop = stops[index] as (typeof stops)[number];
          const at = { lat: stop.dropoffLat, lng: stop.dropoffLng };
          return act(delivery.id, riderId, at, (h, who) => h.executeUpdate(completeStopUpdate, { args: [{ ...who, index, proof }] }));
        }
        case 'deliver': {
          check({ kind: 'deliver', riderId, proof: delivery.verificationMethod });
          const proof = await proofFor(parts, FINAL_DROP);
          const at = { lat: delivery.dropoffLat, lng: delivery.dropoffLng };
          return act(delivery.id, riderId, at, (h, who) => h.executeUpdate(deliverUpdate, { args: [{ ...who, proof }] }));
        }
        case 'expire':
          check({ kind: 'expire' });
          await sendDeliveryUpdate(deps, delivery.id, (h) => h.executeUpdate(expireUpdate), statusOf(delivery.id));
          return;
      }
    },
  };
}
