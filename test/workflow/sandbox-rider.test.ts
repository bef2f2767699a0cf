import {
  acceptUpdate,
  completeStopUpdate,
  deliverUpdate,
  departUpdate,
  expireUpdate,
  pickupUpdate,
  stateQuery,
} from '../../workflows/messages';
import { deliveryInput, FakeWorld, refusalOf, useWorkflowEnv } from './workflow-env';

const env = useWorkflowEnv();

/** The partner's sandbox rider, as the API sends its steps. */
const SANDBOX = { riderId: 'sandbox-rider', lat: 5.6, lng: -0.18 };
const STOPS = [
  { lat: 5.57, lng: -0.21 },
  { lat: 5.58, lng: -0.22 },
];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a manual sandbox rider', () => {
  it('starts no robo rider: the delivery waits for its partner’s steps and takes each as a rider’s, webhooks in order', async () => {
    const world = new FakeWorld();
    const result = await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput({ mode: 'test', sandboxRider: 'manual', stops: STOPS }));
      // Ten robo steps' time: a robo rider would have been enlisted and taken the job by now.
      await pause(1_000);
      expect(world.roboRidersEnlisted).toBe(0);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'pending', riderId: null });

      expect(await handle.executeUpdate(acceptUpdate, { args: [SANDBOX] })).toMatchObject({ status: 'accepted', riderId: SANDBOX.riderId });
      await handle.executeUpdate(pickupUpdate, { args: [SANDBOX] });
      await handle.executeUpdate(departUpdate, { args: [SANDBOX] });
      for (const index of [0, 1]) {
        const state = await handle.executeUpdate(completeStopUpdate, { args: [{ ...SANDBOX, index, proof: { kind: 'none' } }] });
        expect(state).toMatchObject({ status: 'in_transit', stopsCompleted: index + 1 });
      }
      expect(await handle.executeUpdate(deliverUpdate, { args: [{ ...SANDBOX, proof: { kind: 'none' } }] })).toMatchObject({ status: 'delivered' });
      return handle.result();
    });
    expect(result.status).toBe('delivered');
    expect(world.roboRidersEnlisted).toBe(0);
    expect(world.statuses()).toEqual(['accepted', 'picked_up', 'in_transit', 'delivered']);
    expect(world.stopsHandedOver).toEqual([0, 1]);
    expect(world.webhooksSent).toEqual(['event-accepted', 'event-picked_up', 'event-in_transit', 'event-delivered']);
  });

  it('expires a pending job on request at once, as the dispatch deadline would, with its webhook', async () => {
    const world = new FakeWorld();
    const result = await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput({ mode: 'test', sandboxRider: 'manual' }));
      expect(await handle.executeUpdate(expireUpdate)).toMatchObject({ status: 'expired' });
      return handle.result();
    });
    expect(result.status).toBe('expired');
    expect(world.statuses()).toEqual(['expired']);
    expect(world.webhooksSent).toEqual(['event-expired']);
  });

  it('expires a scheduled job still waiting for its dispatch time', async () => {
    const world = new FakeWorld();
    const result = await env().withWorker(world, async () => {
      const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
      const handle = await env().startDelivery(deliveryInput({ mode: 'test', sandboxRider: 'manual', scheduledAt }));
      await handle.executeUpdate(expireUpdate);
      return handle.result();
    });
    expect(result.status).toBe('expired');
    expect(world.statuses()).toEqual(['expired']);
  });

  it('refuses an expiry once the job is accepted, with the status, and changes nothing', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput({ mode: 'test', sandboxRider: 'manual' }));
      await handle.executeUpdate(acceptUpdate, { args: [SANDBOX] });
      expect(await refusalOf(handle.executeUpdate(expireUpdate))).toEqual({
        type: 'InvalidTransition',
        message: 'A delivery that is accepted can no longer expire',
        details: { status: 'accepted' },
      });
      expect((await handle.query(stateQuery)).status).toBe('accepted');
      await handle.terminate();
    });
    expect(world.statuses()).toEqual(['accepted']);
  });

  it('refuses an expiry on request of a live delivery and of one the robo rider rides', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const live = await env().startDelivery(deliveryInput());
      // An old test-mode history has no `sandboxRider`: the robo rider rides it.
      const robo = await env().startDelivery(deliveryInput({ mode: 'test', timings: { roboRiderStepSeconds: 60 } }));
      while (world.roboRidersEnlisted === 0) await pause(50);
      for (const handle of [live, robo]) {
        expect(await refusalOf(handle.executeUpdate(expireUpdate))).toEqual({
          type: 'InvalidTransition',
          message: 'Only a manual sandbox delivery expires on request',
          details: { status: 'pending' },
        });
        await handle.terminate();
      }
    });
    expect(world.statuses()).toEqual([]);
  });
});
