import { cancelUpdate, paymentSettledSignal, stateQuery } from '../../workflows/messages';
import { deliveryInput, FakeWorld, useWorkflowEnv, WorkflowTestEnv } from './workflow-env';

const env = useWorkflowEnv();

type DeliveryHandle = Awaited<ReturnType<WorkflowTestEnv['startDelivery']>>;

async function waitForPayment(handle: DeliveryHandle, not = 'pending') {
  while ((await handle.query(stateQuery)).paymentStatus === not) await new Promise((resolve) => setTimeout(resolve, 50));
  return handle.query(stateQuery);
}

/** Books a delivery and waits for its payment outcome; the workflow is then ended. */
async function paymentOutcome(world: FakeWorld, whilePending?: (handle: DeliveryHandle) => Promise<void>, input = deliveryInput()) {
  return env().withWorker(world, async () => {
    const handle = await env().startDelivery(input);
    await whilePending?.(handle);
    const state = await waitForPayment(handle);
    await handle.terminate();
    return state;
  });
}

describe('the debit', () => {
  it('records paid when the network confirms at once', async () => {
    const world = new FakeWorld();
    world.debit = { answer: { state: 'paid' } };
    expect((await paymentOutcome(world)).paymentStatus).toBe('paid');
    expect(world.payments).toEqual([{ state: 'paid', reason: null, confirmed: true }]);
  });

  it('records failed, with the reason, when the wallet declines', async () => {
    const world = new FakeWorld();
    world.debit = { answer: { state: 'failed', reason: 'Insufficient funds' } };
    expect((await paymentOutcome(world)).paymentStatus).toBe('failed');
    expect(world.payments).toEqual([{ state: 'failed', reason: 'Insufficient funds', confirmed: true }]);
    expect(world.debitTries).toBe(1);
  });

  it('asks the gateway after five tries time out, and records failed on its word when nothing was charged', async () => {
    const world = new FakeWorld();
    world.debit = { outage: true };
    world.debitCheck = { state: 'failed', reason: 'No debit with this reference' };
    expect((await paymentOutcome(world)).paymentStatus).toBe('failed');
    expect(world.debitTries).toBe(5);
    expect(world.payments).toEqual([{ state: 'failed', reason: 'No debit with this reference', confirmed: true }]);
  });

  it('records paid when the charge was made while every request timed out', async () => {
    const world = new FakeWorld();
    world.debit = { outage: true };
    world.debitCheck = { state: 'paid' };
    expect((await paymentOutcome(world)).paymentStatus).toBe('paid');
    expect(world.payments).toEqual([{ state: 'paid', reason: null, confirmed: true }]);
  });

  it('records failed without the gateway’s word when the gateway cannot be asked either, for the reconciliation to settle', async () => {
    const world = new FakeWorld();
    world.debit = { outage: true };
    world.debitCheckFails = true;
    expect((await paymentOutcome(world)).paymentStatus).toBe('failed');
    expect(world.payments).toEqual([{ state: 'failed', reason: 'The mobile network did not answer', confirmed: false }]);
  });

  it('records failed without the gateway’s word a debit still pending at the confirmation limit', async () => {
    const world = new FakeWorld();
    world.debit = { answer: { state: 'pending' } };
    const state = await paymentOutcome(world, undefined, deliveryInput({ timings: { paymentConfirmLimitSeconds: 1 } }));
    expect(state.paymentStatus).toBe('failed');
    expect(world.payments).toEqual([{ state: 'failed', reason: 'The debit was not confirmed in time', confirmed: false }]);
  });

  it('takes the confirmation that arrives late by callback, and only the first one', async () => {
    const world = new FakeWorld();
    world.debit = { answer: { state: 'pending' } };
    const state = await paymentOutcome(world, async (handle) => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await handle.query(stateQuery)).paymentStatus).toBe('pending');
      await handle.signal(paymentSettledSignal, { state: 'paid' });
      await handle.signal(paymentSettledSignal, { state: 'failed', reason: 'too late' });
    });
    expect(state.paymentStatus).toBe('paid');
    expect(world.payments).toEqual([{ state: 'paid', reason: null, confirmed: true }]);
  });

  it('learns a late confirmation by polling the gateway when no callback comes', async () => {
    const world = new FakeWorld();
    world.debit = { answer: { state: 'pending' } };
    world.debitCheck = { state: 'paid' };
    expect((await paymentOutcome(world)).paymentStatus).toBe('paid');
  });

  it('tries again when our own Postgres failed the tries, rather than mark a payment failed that nobody declined', async () => {
    const world = new FakeWorld();
    world.debit = { storeDownFor: 7, then: { state: 'paid' } };
    expect((await paymentOutcome(world)).paymentStatus).toBe('paid');
    expect(world.debitTries).toBe(8);
  });
});

describe('a report of the debit after its record is closed', () => {
  /** A debit recorded failed at the confirmation limit, while the delivery goes on. */
  async function failedAtTheLimit(world: FakeWorld) {
    world.debit = { answer: { state: 'pending' } };
    const handle = await env().startDelivery(deliveryInput({ timings: { paymentConfirmLimitSeconds: 1 } }));
    expect((await waitForPayment(handle)).paymentStatus).toBe('failed');
    return handle;
  }

  it('corrects a failed record to paid when the gateway confirms the customer approved late, once for a doubled success', async () => {
    const world = new FakeWorld();
    const state = await env().withWorker(world, async () => {
      const handle = await failedAtTheLimit(world);
      world.debitCheck = { state: 'paid' };
      await handle.signal(paymentSettledSignal, { state: 'paid' });
      await handle.signal(paymentSettledSignal, { state: 'paid' });
      const settled = await waitForPayment(handle, 'failed');
      await handle.terminate();
      return settled;
    });
    expect(state.paymentStatus).toBe('paid');
    expect(world.corrections).toEqual([{ from: 'failed', to: 'paid' }]);
  });

  it('keeps the record when the gateway does not bear the report out', async () => {
    const world = new FakeWorld();
    world.debit = { answer: { state: 'paid' } };
    world.debitCheck = { state: 'paid' };
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput());
      await waitForPayment(handle);
      await handle.signal(paymentSettledSignal, { state: 'failed', reason: 'a contrary report' });
      await handle.executeUpdate(cancelUpdate);
      expect((await handle.result()).paymentStatus).toBe('paid');
    });
    expect(world.corrections).toEqual([]);
    expect(world.payments).toEqual([{ state: 'paid', reason: null, confirmed: true }]);
  });
});
