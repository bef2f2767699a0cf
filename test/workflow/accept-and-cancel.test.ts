import { acceptUpdate, cancelUpdate, departUpdate, deliverUpdate, paymentSettledSignal, pickupUpdate, stateQuery } from '../../workflows/messages';
import { deliveryInput, FakeWorld, KOFI, refusalOf, useWorkflowEnv } from './workflow-env';

const env = useWorkflowEnv();

const ESI = { riderId: 'rider-esi', lat: 5.61, lng: -0.19 };

describe('the accept race', () => {
  it('gives the job to the first rider; a second accept while the first is written is told another rider is taking it', async () => {
    const world = new FakeWorld();
    world.acceptWriteMs = 3_000;
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput(), { workflowTaskTimeout: '2 seconds' });
      const first = handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const second = await refusalOf(handle.executeUpdate(acceptUpdate, { args: [ESI] }));
      expect(second).toMatchObject({ type: 'Conflict', message: 'Another rider is taking this job', details: { status: 'pending' } });
      expect(await first).toMatchObject({ status: 'accepted', riderId: KOFI.riderId });
      const late = await refusalOf(handle.executeUpdate(acceptUpdate, { args: [ESI] }));
      expect(late).toMatchObject({ type: 'Conflict', message: 'This job is no longer available', details: { status: 'accepted' } });
      await handle.executeUpdate(cancelUpdate);
    });
    expect(world.statuses()).toEqual(['accepted', 'cancelled']);
  });

  it('refuses a rider who already holds another job and keeps the delivery pending for the next', async () => {
    const world = new FakeWorld();
    world.riderJobs.set(KOFI.riderId, 'another-delivery');
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput());
      const refused = await refusalOf(handle.executeUpdate(acceptUpdate, { args: [KOFI] }));
      expect(refused).toMatchObject({ type: 'Conflict', message: 'Finish your current job first' });
      expect((await handle.query(stateQuery)).status).toBe('pending');
      expect(await handle.executeUpdate(acceptUpdate, { args: [ESI] })).toMatchObject({ status: 'accepted', riderId: ESI.riderId });
      await handle.executeUpdate(cancelUpdate);
    });
  });

  it('lets an accept being written at the deadline finish before expiry decides', async () => {
    const world = new FakeWorld();
    world.acceptWriteMs = 1_500;
    const result = await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput({ timings: { dispatchTimeoutSeconds: 1 } }));
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      await handle.executeUpdate(cancelUpdate);
      return handle.result();
    });
    expect(result.status).toBe('cancelled');
    expect(world.statuses()).toEqual(['accepted', 'cancelled']);
  });
});

describe('cancelling', () => {
  it('cancels a pending delivery, and a second cancel answers it again without a second event', async () => {
    const world = new FakeWorld();
    // An unconfirmed debit keeps the workflow open, so the repeat reaches it.
    world.debit = { answer: { state: 'pending' } };
    const result = await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput());
      expect((await handle.executeUpdate(cancelUpdate)).status).toBe('cancelled');
      expect((await handle.executeUpdate(cancelUpdate)).status).toBe('cancelled');
      await handle.signal(paymentSettledSignal, { state: 'paid' });
      return handle.result();
    });
    expect(result.status).toBe('cancelled');
    expect(world.statuses()).toEqual(['cancelled']);
  });

  it('answers a repeat cancel only once the first cancel is recorded', async () => {
    const world = new FakeWorld();
    world.transitionWriteMs = 3_000;
    world.debit = { answer: { state: 'pending' } };
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput(), { workflowTaskTimeout: '2 seconds' });
      const first = handle.executeUpdate(cancelUpdate);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const repeat = await handle.executeUpdate(cancelUpdate);
      expect(repeat.status).toBe('cancelled');
      expect(world.statuses()).toEqual(['cancelled']);
      expect((await first).status).toBe('cancelled');
      await handle.terminate();
    });
  });

  it('cancels an accepted delivery and frees its rider', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput());
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      expect((await handle.executeUpdate(cancelUpdate)).status).toBe('cancelled');
      await handle.result();
    });
    expect(world.statuses()).toEqual(['accepted', 'cancelled']);
    expect(world.riderJobs.has(KOFI.riderId)).toBe(false);
  });

  it('makes a cancel that arrives while an accept is being written wait for it, then cancels the accepted job', async () => {
    const world = new FakeWorld();
    world.acceptWriteMs = 3_000;
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput(), { workflowTaskTimeout: '2 seconds' });
      const accept = handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const cancel = handle.executeUpdate(cancelUpdate);
      // The cancel is taken while the accept is still being written, and answered after it.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(world.statuses()).toEqual([]);
      expect((await accept).status).toBe('accepted');
      expect((await cancel).status).toBe('cancelled');
    });
    expect(world.statuses()).toEqual(['accepted', 'cancelled']);
  });

  it.each([
    ['picked_up', 1],
    ['in_transit', 2],
  ] as const)('refuses a cancel once the delivery is %s, with the status in details', async (status, stepsTaken) => {
    const world = new FakeWorld();
    const steps = [pickupUpdate, departUpdate];
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput());
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      for (const step of steps.slice(0, stepsTaken)) await handle.executeUpdate(step, { args: [KOFI] });
      const refused = await refusalOf(handle.executeUpdate(cancelUpdate));
      expect(refused).toMatchObject({
        type: 'InvalidTransition',
        message: `A delivery that is ${status} can no longer be cancelled`,
        details: { status },
      });
      for (const step of steps.slice(stepsTaken)) await handle.executeUpdate(step, { args: [KOFI] });
      await handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: { kind: 'none' } }] });
      expect((await handle.result()).status).toBe('delivered');
    });
    expect(world.statuses()).toEqual(['accepted', 'picked_up', 'in_transit', 'delivered']);
  });

  it('refuses every step out of order and from a rider who does not hold the job', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput());
      // Before any accept a step is out of order, as the API answers on the read model.
      expect(await refusalOf(handle.executeUpdate(pickupUpdate, { args: [KOFI] }))).toMatchObject({
        type: 'InvalidTransition',
        message: 'Cannot pick up while the delivery is pending',
      });
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      expect(await refusalOf(handle.executeUpdate(pickupUpdate, { args: [ESI] }))).toMatchObject({ type: 'NotYourJob' });
      expect(await refusalOf(handle.executeUpdate(departUpdate, { args: [KOFI] }))).toMatchObject({
        type: 'InvalidTransition',
        message: 'Cannot depart while the delivery is accepted',
        details: { status: 'accepted' },
      });
      await handle.executeUpdate(cancelUpdate);
    });
    expect(world.statuses()).toEqual(['accepted', 'cancelled']);
  });
});
