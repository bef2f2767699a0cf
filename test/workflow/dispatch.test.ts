import { deliveryInput, FakeWorld, useWorkflowEnv } from './workflow-env';

const env = useWorkflowEnv();

describe('dispatch', () => {
  it('expires a delivery no rider accepts before the deadline, widening the search on its timer meanwhile', async () => {
    const world = new FakeWorld();
    const result = await env().withWorker(world, async () => {
      const timings = { dispatchTimeoutSeconds: 4, dispatchWidenSeconds: 0.5, dispatchInitialRadiusKm: 8, dispatchMaxRadiusKm: 20 };
      return (await env().startDelivery(deliveryInput({ timings }))).result();
    });
    expect(result.status).toBe('expired');
    expect(world.statuses()).toEqual(['expired']);
    // The radius doubles each round up to its cap; how many rounds fit depends on the machine.
    expect(world.offers.map((o) => o.radiusKm).slice(0, 3)).toEqual([8, 16, 20]);
    expect(world.webhooksSent).toEqual(['event-expired']);
  });

  it('waits until the scheduled time before it offers the job', async () => {
    const world = new FakeWorld();
    const scheduledAt = Date.now() + 2_000;
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput({ scheduledAt: new Date(scheduledAt).toISOString() }));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(world.offers).toEqual([]);
      while (world.offers.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      await handle.terminate();
    });
    expect(world.offers[0]?.at).toBeGreaterThanOrEqual(scheduledAt);
  });

  it('dispatches at once a delivery whose scheduled time has already passed', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput({ scheduledAt: new Date(Date.now() - 3_600_000).toISOString() }));
      while (world.offers.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      await handle.terminate();
    });
    expect(world.offers[0]?.radiusKm).toBe(3);
  });

  it('counts the deadline of a scheduled delivery from its dispatch time, not from the booking', async () => {
    const world = new FakeWorld();
    const scheduledAt = Date.now() + 1_500;
    const result = await env().withWorker(world, async () => {
      const input = deliveryInput({ scheduledAt: new Date(scheduledAt).toISOString(), timings: { dispatchTimeoutSeconds: 1 } });
      return (await env().startDelivery(input)).result();
    });
    expect(result.status).toBe('expired');
    expect(world.offers[0]?.at).toBeGreaterThanOrEqual(scheduledAt);
  });

  it('offers a test-mode job to no live rider', async () => {
    const world = new FakeWorld();
    const result = await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput({ mode: 'test', timings: { dispatchTimeoutSeconds: 1 } }));
      return handle.result();
    });
    expect(world.offers).toEqual([]);
    expect(result.status).toBe('expired');
  });

  it('ends unstarted a delivery whose booking was withdrawn: no offer, no debit, no event', async () => {
    const world = new FakeWorld();
    world.bookingWithdrawn = true;
    const result = await env().withWorker(world, async () => (await env().startDelivery(deliveryInput())).result());
    expect(result.status).toBe('pending');
    expect(world.offers).toEqual([]);
    expect(world.debitTries).toBe(0);
    expect(world.transitions).toEqual([]);
  });
});
