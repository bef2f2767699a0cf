import type { WorkflowHandle } from '@temporalio/client';
import {
  acceptUpdate,
  attentionSignal,
  cancelUpdate,
  deliverUpdate,
  departUpdate,
  pickupUpdate,
  reassignUpdate,
  stateQuery,
} from '../../workflows/messages';
import { deliveryInput, FakeWorld, KOFI, refusalOf, useWorkflowEnv } from './workflow-env';

const env = useWorkflowEnv();

const ESI = { riderId: 'rider-esi', lat: 5.61, lng: -0.19 };
const YAW = { riderId: 'rider-yaw', lat: 5.59, lng: -0.2 };

async function needsAttention(handle: WorkflowHandle): Promise<unknown> {
  return (await handle.describe()).searchAttributes.NeedsAttention;
}

/** Waits until `check` holds, or fails after `ms`. */
async function eventually(check: () => Promise<boolean> | boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a job whose rider went silent', () => {
  it('is handed to another free rider, keeping its status and sending no event; the new rider carries on', async () => {
    const world = new FakeWorld();
    const result = await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput());
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      await handle.executeUpdate(pickupUpdate, { args: [KOFI] });
      const state = await handle.executeUpdate(reassignUpdate, { args: [{ riderId: ESI.riderId }] });
      expect(state).toMatchObject({ status: 'picked_up', riderId: ESI.riderId });
      expect(world.statuses()).toEqual(['accepted', 'picked_up']);
      expect(world.riderJobs.has(KOFI.riderId)).toBe(false);
      // The former rider's next step is on a job that is no longer theirs.
      expect(await refusalOf(handle.executeUpdate(departUpdate, { args: [KOFI] }))).toMatchObject({
        type: 'NotYourJob',
        message: 'This delivery is not yours',
      });
      await handle.executeUpdate(departUpdate, { args: [ESI] });
      await handle.executeUpdate(deliverUpdate, { args: [{ ...ESI, proof: { kind: 'none' } }] });
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'delivered', riderId: ESI.riderId });
    expect(world.transitions.map((t) => [t.status, t.riderId])).toEqual([
      ['accepted', KOFI.riderId],
      ['picked_up', KOFI.riderId],
      ['in_transit', ESI.riderId],
      ['delivered', ESI.riderId],
    ]);
  });

  it('is offered again near where the parcel is when no rider is named, and the first to accept takes it over as it stands', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput());
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      await handle.executeUpdate(pickupUpdate, { args: [KOFI] });
      const offersBefore = world.offers.length;
      expect(await handle.executeUpdate(reassignUpdate, { args: [{ riderId: null }] })).toMatchObject({ status: 'picked_up', riderId: null });
      await eventually(() => world.offers.length > offersBefore);
      // Picked up: the parcel is where the silent rider last was, and the silent rider is never offered it.
      expect(world.offers.at(-1)).toMatchObject({ near: world.formerPosition, exceptRiderId: KOFI.riderId });
      const taken = await handle.executeUpdate(acceptUpdate, { args: [ESI] });
      expect(taken).toMatchObject({ status: 'picked_up', riderId: ESI.riderId });
      expect(await refusalOf(handle.executeUpdate(acceptUpdate, { args: [YAW] }))).toMatchObject({
        type: 'Conflict',
        message: 'This job is no longer available',
      });
      // No new offer rounds once someone holds it.
      const offersAfter = world.offers.length;
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(world.offers.length).toBe(offersAfter);
      await handle.executeUpdate(departUpdate, { args: [ESI] });
      await handle.executeUpdate(deliverUpdate, { args: [{ ...ESI, proof: { kind: 'none' } }] });
      await handle.result();
    });
    expect(world.statuses()).toEqual(['accepted', 'picked_up', 'in_transit', 'delivered']);
    expect(world.reassignments).toEqual([
      { fromRiderId: KOFI.riderId, toRiderId: null },
      { fromRiderId: null, toRiderId: ESI.riderId },
    ]);
  });

  it('refuses a reassignment of a job nobody holds yet, of a finished one, and to the rider who holds it', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput());
      expect(await refusalOf(handle.executeUpdate(reassignUpdate, { args: [{ riderId: ESI.riderId }] }))).toMatchObject({
        type: 'InvalidTransition',
        message: 'A delivery that is pending has no rider to replace',
      });
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      expect(await refusalOf(handle.executeUpdate(reassignUpdate, { args: [{ riderId: KOFI.riderId }] }))).toMatchObject({ type: 'Conflict' });
      world.riderJobs.set(ESI.riderId, 'another-delivery');
      expect(await refusalOf(handle.executeUpdate(reassignUpdate, { args: [{ riderId: ESI.riderId }] }))).toMatchObject({
        type: 'Conflict',
        message: expect.stringMatching(/not free/),
      });
      expect((await handle.query(stateQuery)).riderId).toBe(KOFI.riderId);
      await handle.executeUpdate(cancelUpdate);
    });
  });

  it('is marked NeedsAttention when the street watch says so, until it moves', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput());
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      await handle.signal(attentionSignal, { needed: true });
      await eventually(async () => JSON.stringify(await needsAttention(handle)) === '[true]');
      await handle.executeUpdate(pickupUpdate, { args: [KOFI] });
      await eventually(async () => JSON.stringify(await needsAttention(handle)) === '[false]');
      // Heard from again: the watch clears it too.
      await handle.signal(attentionSignal, { needed: true });
      await eventually(async () => JSON.stringify(await needsAttention(handle)) === '[true]');
      await handle.signal(attentionSignal, { needed: false });
      await eventually(async () => JSON.stringify(await needsAttention(handle)) === '[false]');
      await handle.executeUpdate(departUpdate, { args: [KOFI] });
      await handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: { kind: 'none' } }] });
      await handle.result();
    });
  });
});
