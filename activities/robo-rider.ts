import { WorkflowUpdateFailedError } from '@temporalio/client';
import { v5 as nameBasedUuid } from 'uuid';
import { interpolate, type LatLng } from '../domain/geo';
import { deliveryWorkflowId } from '../domain/reference';
import { DeliverySchema } from '../db/entities';
import {
  acceptUpdate,
  completeStopUpdate,
  deliverUpdate,
  departUpdate,
  pickupUpdate,
  type HandoverProof,
} from '../workflows/messages';
import type { ActivityDeps } from './deps';

/** The namespace of robo riders' name-based ids (a random UUID, fixed once). */
const ROBO_RIDER_NAMESPACE = '6f1d7c2e-3b0a-4c55-9e8d-2a41b7f0c913';

/**
 * A test delivery's robo rider id: its own UUID, never the delivery's (a partner would read one id
 * naming two things), and the same on every try, derived from the delivery id.
 */
export function roboRiderId(deliveryId: string): string {
  return nameBasedUuid(deliveryId, ROBO_RIDER_NAMESPACE);
}

const ROBO_NAMES = ['Kwame Robo', 'Akosua Robo', 'Yaw Robo', 'Efua Robo', 'Kofi Robo', 'Abena Robo'];

const REACHES = { accept: 'accepted', pickup: 'picked_up', depart: 'in_transit', deliver: 'delivered' } as const;
const FORWARD: readonly string[] = ['accepted', 'picked_up', 'in_transit', 'delivered'];

export function createRoboRiderActivities({ orm, temporal }: ActivityDeps) {
  /** Whether the read model already shows this rider's step as done. */
  async function alreadyDone(deliveryId: string, riderId: string, action: keyof typeof REACHES | 'stop', index?: number): Promise<boolean> {
    const em = orm.em.fork();
    if (action === 'stop') {
      const [stop] = await em.execute<{ status: string }[]>('select status from delivery_stops where delivery_id = ? and position = ?', [
        deliveryId,
        index ?? 0,
      ]);
      return stop?.status === 'delivered';
    }
    const delivery = await em.findOneOrFail(DeliverySchema, { id: deliveryId });
    return delivery.riderId === riderId && FORWARD.indexOf(delivery.status) >= FORWARD.indexOf(REACHES[action]);
  }

  async function moveTo(riderId: string, position: LatLng): Promise<void> {
    await orm.em.fork().execute('update riders set lat = ?, lng = ?, located_at = now() where id = ?', [
      position.lat,
      position.lng,
      riderId,
    ]);
  }

  return {
    /**
     * A robo rider of its own for each test delivery (its id derives from the delivery's, so a
     * retried activity enlists the same one); it never appears in live dispatch.
     */
    async enlistRoboRider({ deliveryId, position }: { deliveryId: string; position: LatLng }): Promise<string> {
      const riderId = roboRiderId(deliveryId);
      const name = ROBO_NAMES[parseInt(deliveryId.slice(0, 2), 16) % ROBO_NAMES.length] as string;
      await orm.em.fork().execute(
        `insert into riders (id, name, vehicle, rating, is_robo, online, lat, lng, located_at)
         values (?, ?, 'Test motorbike', 5, true, true, ?, ?, now()) on conflict (id) do nothing`,
        [riderId, name, position.lat, position.lng],
      );
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
      const delivery = await orm.em.fork().findOneOrFail(DeliverySchema, { id: deliveryId });
      // The robo rider passes verification by itself.
      const proof: HandoverProof =
        delivery.verificationMethod === 'photo'
          ? { kind: 'photo', storageKey: 'robo-rider-handover.png' }
          : { kind: delivery.verificationMethod === 'otp' ? 'otp' : 'none' };
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
