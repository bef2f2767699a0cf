import { ParentClosePolicy, condition, startChild, workflowInfo } from '@temporalio/workflow';
import type { LatLng } from '../../domain/geo';
import { roboRiderWorkflow } from '../robo-rider';
import type { Delivery } from './state';

/** A scheduled booking sleeps durably until its dispatch time; a cancel ends the wait. */
export async function waitForScheduledTime(delivery: Delivery): Promise<void> {
  const { scheduledAt } = delivery.input;
  if (!scheduledAt) return;
  const untilDispatch = Date.parse(scheduledAt) - Date.now();
  if (untilDispatch > 0) await condition(() => delivery.status !== 'pending', untilDispatch);
}

/**
 * Finds a rider: offers the job on a radius that widens on a timer until a rider accepts or the
 * dispatch deadline passes, then expires a job nobody took. Test-mode jobs go to a robo rider,
 * unless their partner drives a manual sandbox rider: then the partner's steps come as updates.
 */
export async function dispatch(delivery: Delivery): Promise<void> {
  if (delivery.input.mode === 'test' && !delivery.ridesInManualSandbox) await startRoboRider(delivery);
  const deadline = Date.now() + delivery.input.timings.dispatchTimeoutSeconds * 1000;
  await offerWithWideningRadius(delivery, deadline);
  await expireIfNoRider(delivery);
}

/** Each round offers the job to riders within the radius, then waits `dispatchWidenSeconds` for one. */
async function offerWithWideningRadius(delivery: Delivery, deadline: number): Promise<void> {
  const t = delivery.input.timings;
  let radiusKm = t.dispatchInitialRadiusKm;
  while (delivery.status === 'pending' && Date.now() < deadline) {
    if (delivery.input.mode === 'live') {
      await delivery.acts.db.offerToNearbyRiders({
        deliveryId: delivery.input.deliveryId,
        pickup: delivery.input.pickup,
        radiusKm,
        expiresAt: new Date(deadline).toISOString(),
      });
    }
    await condition(() => delivery.status !== 'pending', Math.min(t.dispatchWidenSeconds * 1000, deadline - Date.now()));
    radiusKm = Math.min(radiusKm * 2, t.dispatchMaxRadiusKm);
  }
}

/**
 * A job an operator took from a silent rider, offered on a widening radius around `near` until a
 * rider takes it over or it ends (a partner may still cancel one that was `accepted`). Nobody's
 * offer expires while the job waits: each round's offers last a dispatch timeout.
 */
export async function offerAgain(delivery: Delivery, exceptRiderId: string | null, near: LatLng): Promise<void> {
  const t = delivery.input.timings;
  const waiting = () => delivery.riderId === null && !delivery.isFinished;
  let radiusKm = t.dispatchInitialRadiusKm;
  while (waiting()) {
    await delivery.acts.db.offerToNearbyRiders({
      deliveryId: delivery.input.deliveryId,
      pickup: near,
      radiusKm,
      expiresAt: new Date(Date.now() + t.dispatchTimeoutSeconds * 1000).toISOString(),
      exceptRiderId,
    });
    await condition(() => !waiting(), t.dispatchWidenSeconds * 1000);
    radiusKm = Math.min(radiusKm * 2, t.dispatchMaxRadiusKm);
  }
}

/** The dispatch deadline: a job still pending expires. An accept being written is let finish first. */
async function expireIfNoRider(delivery: Delivery): Promise<void> {
  await condition(() => !delivery.accepting);
  if (delivery.status === 'pending') await delivery.moveTo('expired');
}

async function startRoboRider(delivery: Delivery): Promise<void> {
  const { input } = delivery;
  await startChild(roboRiderWorkflow, {
    workflowId: `robo-rider-${input.deliveryId}`,
    taskQueue: workflowInfo().taskQueue,
    parentClosePolicy: ParentClosePolicy.TERMINATE,
    args: [
      {
        deliveryId: input.deliveryId,
        route: [input.pickup, ...input.stops, input.dropoff],
        stopsCount: input.stops.length,
        stepSeconds: input.timings.roboRiderStepSeconds,
      },
    ],
  });
}
