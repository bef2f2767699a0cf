import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { interpolate, type LatLng } from '../domain/geo';
import { FINAL_DROP } from '../domain/lifecycle';
import { deliveryWorkflowId } from '../domain/reference';
import { sandboxProof } from '../domain/sandbox-rider';
import * as deliveries from '../db/deliveries';
import * as deliveryStops from '../db/delivery-stops';
import * as handoverCodes from '../db/handover-codes';
import * as handoverPhotos from '../db/handover-photos';
import * as riders from '../db/riders';
import {
  acceptUpdate,
  completeStopUpdate,
  deliverUpdate,
  departUpdate,
  pickupUpdate,
  type HandoverProof,
} from '../workflows/messages';
import type { ActivityDeps } from './deps';

const ROBO_NAMES = ['Kwame Robo', 'Akosua Robo', 'Yaw Robo', 'Efua Robo', 'Kofi Robo', 'Abena Robo'];

const REACHES = { accept: 'accepted', pickup: 'picked_up', depart: 'in_transit', deliver: 'delivered' } as const;
const FORWARD: readonly string[] = ['accepted', 'picked_up', 'in_transit', 'delivered'];

export function createRoboRiderActivities({ orm, temporal, photos }: ActivityDeps) {
  /** Whether the read model already shows this rider's step as done. */
  async function alreadyDone(deliveryId: string, riderId: string, action: keyof typeof REACHES | 'stop', index?: number): Promise<boolean> {
    const em = orm.em.fork();
    if (action === 'stop') {
      return (await deliveryStops.statusOf(em, deliveryId, index ?? 0)) === 'delivered';
    }
    const delivery = await deliveries.get(em, deliveryId);
    return delivery.riderId === riderId && FORWARD.indexOf(delivery.status) >= FORWARD.indexOf(REACHES[action]);
  }

  /** The robo rider passes verification by itself (domain/sandbox-rider.ts). */
  async function roboProof(deliveryId: string, position: number): Promise<HandoverProof> {
    const em = orm.em.fork();
    const delivery = await deliveries.get(em, deliveryId);
    const codeHash = delivery.verificationMethod === 'otp' ? await handoverCodes.issuedHash(em, deliveryId, position) : null;
    const photoKey = delivery.verificationMethod === 'photo' ? await handoverPhotos.keepSandboxPhoto(em, photos, deliveryId, position) : null;
    const proof = sandboxProof(delivery.verificationMethod, { codeHash, photoKey });
    // The codes are texted beside dispatch; the activity's retry waits for them.
    if (proof === null) throw ApplicationFailure.retryable('The hand-over code is not issued yet', 'CodeNotIssued');
    return proof;
  }

  async function moveTo(riderId: string, position: LatLng): Promise<void> {
    await riders.moveRobo(orm.em.fork(), riderId, position);
  }

  return {
    /**
     * A robo rider of its own for each test delivery (its id derives from the delivery's, so a
     * retried activity enlists the same one); it never appears in live dispatch.
     */
    async enlistRoboRider({ deliveryId, position }: { deliveryId: string; position: LatLng }): Promise<string> {
      const riderId = riders.sandboxRiderId(deliveryId);
      const name = ROBO_NAMES[parseInt(deliveryId.slice(0, 2), 16) % ROBO_NAMES.length] as string;
      await riders.enlistRobo(orm.em.fork(), { id: riderId, name, position });
      return riderId;
    },

    /** Moves the robo rider part of the way along a leg, as live location pings would. */
    async moveRoboRider({ riderId, from, to, fraction }: { riderId: string; from: LatLng; to: LatLng; fraction: number }) {
      await moveTo(riderId, interpolate(from, to, fraction));
    },

    /**
     * One rider-app step, sent as the same Temporal update a real rider's request becomes.
     * Returns false when the delivery refuses it (cancelled, say): the robo rider then stops.
     */
    async roboRiderAct(input: {
      deliveryId: string;
      riderId: string;
      action: 'accept' | 'pickup' | 'depart' | 'stop' | 'deliver';
      position: LatLng;
      index?: number;
    }): Promise<boolean> {
      const { deliveryId, riderId, action, position } = input;
      await moveTo(riderId, position);
      const handingOver = action === 'stop' || action === 'deliver';
      const proof = handingOver ? await roboProof(deliveryId, action === 'stop' ? (input.index ?? 0) : FINAL_DROP) : { kind: 'none' as const };
      const handle = temporal.workflow.getHandle(deliveryWorkflowId(deliveryId));
      const who = { riderId, lat: position.lat, lng: position.lng };
      try {
        if (action === 'accept') await handle.executeUpdate(acceptUpdate, { args: [who] });
        else if (action === 'pickup') await handle.executeUpdate(pickupUpdate, { args: [who] });
        else if (action === 'depart') await handle.executeUpdate(departUpdate, { args: [who] });
        else if (action === 'stop') await handle.executeUpdate(completeStopUpdate, { args: [{ ...who, index: input.index ?? 0, proof }] });
        else await handle.executeUpdate(deliverUpdate, { args: [{ ...who, proof }] });
        return true;
      } catch (error) {
        // A retry whose first answer was lost (an outage, a crash) is refused as already done: carry on then.
        if (error instanceof WorkflowUpdateFailedError) return alreadyDone(deliveryId, riderId, action, input.index);
        throw error;
      }
    },
  };
}
