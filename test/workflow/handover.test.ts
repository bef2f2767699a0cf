import { hashHandoverCode } from '../../domain/handover-code-hash';
import { FINAL_DROP } from '../../domain/lifecycle';
import { acceptUpdate, completeStopUpdate, deliverUpdate, departUpdate, pickupUpdate, stateQuery, type HandoverProof } from '../../workflows/messages';
import { deliveryInput, FakeWorld, KOFI, refusalOf, useWorkflowEnv } from './workflow-env';

const env = useWorkflowEnv();

const none: HandoverProof = { kind: 'none' };
const STOPS = [
  { lat: 5.58, lng: -0.21 },
  { lat: 5.57, lng: -0.22 },
];

/** A delivery the rider has taken, picked up and set off with. */
async function inTransit(input: ReturnType<typeof deliveryInput>) {
  const handle = await env().startDelivery(input);
  await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
  await handle.executeUpdate(pickupUpdate, { args: [KOFI] });
  await handle.executeUpdate(departUpdate, { args: [KOFI] });
  return handle;
}

describe('stops', () => {
  it('hands over each stop in array order before the final drop', async () => {
    const world = new FakeWorld();
    const result = await env().withWorker(world, async () => {
      const handle = await inTransit(deliveryInput({ stops: STOPS }));
      expect(await refusalOf(handle.executeUpdate(completeStopUpdate, { args: [{ ...KOFI, index: 1, proof: none }] }))).toMatchObject({
        type: 'InvalidTransition',
        message: 'Stops are handed over in order; next is stop 0',
        details: { status: 'in_transit', next_stop: 0 },
      });
      expect(await refusalOf(handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: none }] }))).toMatchObject({
        message: 'Every additional stop must be handed over first',
        details: { next_stop: 0 },
      });
      await handle.executeUpdate(completeStopUpdate, { args: [{ ...KOFI, index: 0, proof: none }] });
      expect((await handle.executeUpdate(completeStopUpdate, { args: [{ ...KOFI, index: 1, proof: none }] })).stopsCompleted).toBe(2);
      await handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: none }] });
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'delivered', stopsTotal: 2, stopsCompleted: 2 });
    expect(world.stopsHandedOver).toEqual([0, 1]);
  });

  it('requires a photo where the booking asked for one', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const handle = await inTransit(deliveryInput({ verificationMethod: 'photo' }));
      expect(await refusalOf(handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: none }] }))).toMatchObject({
        type: 'VerificationFailed',
        message: 'A photo of the hand-over is required',
      });
      const photo: HandoverProof = { kind: 'photo', storageKey: 'handover.png' };
      expect((await handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: photo }] })).status).toBe('delivered');
    });
  });
});

describe('hand-over codes', () => {
  const otp = (deliveryId: string, code: string, position = FINAL_DROP): HandoverProof => ({
    kind: 'otp',
    codeHash: hashHandoverCode(deliveryId, position, code),
  });

  it('delivers with the right code; wrong codes change nothing, and too many lock the drop for a while', async () => {
    const world = new FakeWorld();
    const input = deliveryInput({ verificationMethod: 'otp', timings: { otpMaxAttempts: 3, otpLockSeconds: 2 } });
    world.issuedCodes.set(FINAL_DROP, hashHandoverCode(input.deliveryId, FINAL_DROP, '424242'));
    await env().withWorker(world, async () => {
      const handle = await inTransit(input);
      const deliver = (code: string) => handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: otp(input.deliveryId, code) }] });
      for (let i = 0; i < 3; i++) {
        expect(await refusalOf(deliver('000000'))).toMatchObject({ type: 'VerificationFailed', message: 'The code is wrong', details: { otp: 'does not match' } });
      }
      expect(await refusalOf(deliver('424242'))).toMatchObject({ message: 'Too many wrong codes; try again later' });
      expect((await handle.query(stateQuery)).status).toBe('in_transit');
      expect(world.codeTries).toBe(3);
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      expect((await deliver('424242')).status).toBe('delivered');
    });
    expect(world.statuses()).toEqual(['accepted', 'picked_up', 'in_transit', 'delivered']);
  });

  it('compares one try at a time: tries sent at once while one is compared are refused, never queued, and no more than the allowed tries are compared', async () => {
    const world = new FakeWorld();
    const input = deliveryInput({ verificationMethod: 'otp', timings: { otpMaxAttempts: 3, otpLockSeconds: 60 } });
    world.issuedCodes.set(FINAL_DROP, hashHandoverCode(input.deliveryId, FINAL_DROP, '424242'));
    await env().withWorker(world, async () => {
      const handle = await inTransit(input);
      const wrong = (i: number) =>
        refusalOf(handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: otp(input.deliveryId, String(100000 + i)) }] }));
      const burst = (await Promise.all(Array.from({ length: 8 }, (_, i) => wrong(i)))).map((refused) => refused.message);
      expect(burst.filter((message) => message === 'The code is wrong')).toHaveLength(world.codeTries);
      expect(burst.filter((message) => message !== 'The code is wrong').every((m) => /being checked|Too many wrong codes/.test(m))).toBe(true);
      // One at a time, the allowed tries run out and the drop locks: the right code is refused too.
      for (let i = 0; world.codeTries < 3; i++) expect((await wrong(100 + i)).message).toBe('The code is wrong');
      const right = await refusalOf(handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: otp(input.deliveryId, '424242') }] }));
      expect(right.message).toBe('Too many wrong codes; try again later');
      expect(world.codeTries).toBe(3);
      await handle.terminate();
    });
  });

  it('refuses a stop out of order before it compares the code, so a code typed at the wrong door is not a wrong try', async () => {
    const world = new FakeWorld();
    const input = deliveryInput({ verificationMethod: 'otp', stops: STOPS });
    world.issuedCodes.set(1, hashHandoverCode(input.deliveryId, 1, '111111'));
    await env().withWorker(world, async () => {
      const handle = await inTransit(input);
      const outOfOrder = handle.executeUpdate(completeStopUpdate, { args: [{ ...KOFI, index: 1, proof: otp(input.deliveryId, '000000', 1) }] });
      expect(await refusalOf(outOfOrder)).toMatchObject({ type: 'InvalidTransition', details: { next_stop: 0 } });
      expect(world.codeTries).toBe(0);
      await handle.terminate();
    });
  });

  it('checks each stop against its own code, and says when none is issued yet', async () => {
    const world = new FakeWorld();
    const input = deliveryInput({ verificationMethod: 'otp', stops: STOPS.slice(0, 1) });
    await env().withWorker(world, async () => {
      const handle = await inTransit(input);
      const stop = (code: string) =>
        handle.executeUpdate(completeStopUpdate, { args: [{ ...KOFI, index: 0, proof: otp(input.deliveryId, code, 0) }] });
      expect(await refusalOf(stop('111111'))).toMatchObject({ message: 'No code was issued for this hand-over yet; try again in a moment' });
      world.issuedCodes.set(0, hashHandoverCode(input.deliveryId, 0, '111111'));
      // The final drop's code is no good at the stop.
      world.issuedCodes.set(FINAL_DROP, hashHandoverCode(input.deliveryId, FINAL_DROP, '222222'));
      expect(await refusalOf(stop('222222'))).toMatchObject({ message: 'The code is wrong' });
      expect((await stop('111111')).stopsCompleted).toBe(1);
      await handle.terminate();
    });
  });
});

describe('one hand-over at a time', () => {
  /**
   * Two copies of the same hand-over sent while no worker runs, so one activation carries both;
   * resolves once both reached the server, with their outcomes still to come.
   */
  async function sentTogether<T>(send: () => Promise<T>): Promise<{ outcomes: Promise<PromiseSettledResult<T>[]> }> {
    const outcomes = Promise.allSettled([send(), send()]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { outcomes };
  }

  it.each([
    ['a stop handed over without proof', 'none'],
    ['a stop handed over with a photo', 'photo'],
  ] as const)('takes %s once when two arrive in one activation', async (_name, kind) => {
    const world = new FakeWorld();
    const input = deliveryInput({ stops: STOPS, verificationMethod: kind });
    const proof: HandoverProof = kind === 'photo' ? { kind: 'photo', storageKey: 'stop-0.png' } : none;
    const handle = await env().withWorker(world, () => inTransit(input));
    const settled = (await sentTogether(() => handle.executeUpdate(completeStopUpdate, { args: [{ ...KOFI, index: 0, proof }] }))).outcomes;
    const outcomes = await env().withWorker(
      world,
      async () => {
        const results = await settled;
        expect((await handle.query(stateQuery)).stopsCompleted).toBe(1);
        return results;
      },
      { sameQueue: true },
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(await refusalOf(Promise.reject(refused.reason))).toMatchObject({ type: 'InvalidTransition', details: { status: 'in_transit' } });
    expect(world.stopsHandedOver).toEqual([0]);
  });

  it('delivers once, with one event, when two final hand-overs arrive in one activation', async () => {
    const world = new FakeWorld();
    const input = deliveryInput();
    const handle = await env().withWorker(world, () => inTransit(input));
    const settled = (await sentTogether(() => handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: none }] }))).outcomes;
    const outcomes = await env().withWorker(
      world,
      async () => {
        const results = await settled;
        await handle.result();
        return results;
      },
      { sameQueue: true },
    );
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    // One hand-over taken: one status change, and one callback sent for it.
    expect(world.statuses().filter((status) => status === 'delivered')).toHaveLength(1);
    expect(world.webhooksSent.filter((eventId) => eventId === 'event-delivered')).toHaveLength(1);
  });
});
