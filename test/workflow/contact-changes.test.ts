import { hashHandoverCode } from '../../domain/handover-code-hash';
import { FINAL_DROP } from '../../domain/lifecycle';
import {
  acceptUpdate,
  cancelUpdate,
  changeContactsUpdate,
  completeStopUpdate,
  deliverUpdate,
  departUpdate,
  pickupUpdate,
  stateQuery,
  type ContactChange,
} from '../../workflows/messages';
import { deliveryInput, FakeWorld, KOFI, refusalOf, useWorkflowEnv } from './workflow-env';

const env = useWorkflowEnv();
const STOPS = [
  { lat: 5.58, lng: -0.21 },
  { lat: 5.57, lng: -0.22 },
];
const change = (fields: Partial<ContactChange>): ContactChange => ({ stops: [], ...fields });

describe("a partner's change of recipients", () => {
  it('is written at once in any status before the hand-over, with no status change', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput({ stops: STOPS }));
      await handle.executeUpdate(changeContactsUpdate, { args: [change({ recipientName: 'Efua Mensah', packageDescription: null })] });
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      await handle.executeUpdate(pickupUpdate, { args: [KOFI] });
      const after = await handle.executeUpdate(changeContactsUpdate, { args: [change({ stops: [{ index: 1, recipientPhone: '+233241234567' }] })] });
      expect(after.status).toBe('picked_up');
      await handle.executeUpdate(cancelUpdate).catch(() => undefined);
    });
    expect(world.contactChanges).toEqual([
      { stops: [], recipientName: 'Efua Mensah', packageDescription: null },
      { stops: [{ index: 1, recipientPhone: '+233241234567' }] },
    ]);
    expect(world.statuses()).toEqual(['accepted', 'picked_up']);
    // Codes are the `otp` delivery's only: this one asked for none.
    expect(world.reissuedCodes).toEqual([]);
  });

  it('refuses a stop already handed over, and a stop that is not there', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput({ stops: STOPS }));
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      await handle.executeUpdate(pickupUpdate, { args: [KOFI] });
      await handle.executeUpdate(departUpdate, { args: [KOFI] });
      await handle.executeUpdate(completeStopUpdate, { args: [{ ...KOFI, index: 0, proof: { kind: 'none' } }] });
      const send = (c: ContactChange) => refusalOf(handle.executeUpdate(changeContactsUpdate, { args: [c] }));
      expect(await send(change({ stops: [{ index: 0, recipientName: 'Too late' }] }))).toMatchObject({
        type: 'InvalidTransition',
        message: 'Stop 0 is already handed over',
        details: { status: 'in_transit', additional_stops: 'stop 0 is already handed over' },
      });
      expect(await send(change({ stops: [{ index: 2, recipientName: 'Nobody' }] }))).toMatchObject({
        type: 'InvalidTransition',
        details: { status: 'in_transit', additional_stops: 'has no stop 2' },
      });
      await handle.executeUpdate(completeStopUpdate, { args: [{ ...KOFI, index: 1, proof: { kind: 'none' } }] });
      await handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: { kind: 'none' } }] });
      await handle.result();
    });
    expect(world.contactChanges).toEqual([]);
  });

  it('issues new codes to the drops whose phone changed on an otp delivery; the old code no longer delivers', async () => {
    const world = new FakeWorld();
    const input = deliveryInput({ verificationMethod: 'otp', stops: STOPS });
    world.issuedCodes.set(FINAL_DROP, hashHandoverCode(input.deliveryId, FINAL_DROP, '111111'));
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(input);
      // Two changes sent before the worker takes either: both are applied, in order.
      await Promise.all([
        handle.executeUpdate(changeContactsUpdate, { args: [change({ recipientPhone: '+233241234567' })] }),
        handle.executeUpdate(changeContactsUpdate, { args: [change({ stops: [{ index: 1, recipientPhone: '+233201234567', recipientName: 'Kwame' }] })] }),
      ]);
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      await handle.executeUpdate(pickupUpdate, { args: [KOFI] });
      await handle.executeUpdate(departUpdate, { args: [KOFI] });
      const oldCode = { kind: 'otp' as const, codeHash: hashHandoverCode(input.deliveryId, FINAL_DROP, '111111') };
      for (const index of [0, 1]) {
        world.issuedCodes.set(index, hashHandoverCode(input.deliveryId, index, '222222'));
        await handle.executeUpdate(completeStopUpdate, {
          args: [{ ...KOFI, index, proof: { kind: 'otp', codeHash: hashHandoverCode(input.deliveryId, index, '222222') } }],
        });
      }
      expect(await refusalOf(handle.executeUpdate(deliverUpdate, { args: [{ ...KOFI, proof: oldCode }] }))).toMatchObject({ type: 'VerificationFailed' });
      expect((await handle.query(stateQuery)).status).toBe('in_transit');
      await handle.executeUpdate(cancelUpdate).catch(() => undefined);
    });
    expect(world.contactChanges).toHaveLength(2);
    expect(world.reissuedCodes.sort()).toEqual([[1], [FINAL_DROP]].sort());
  });
});
