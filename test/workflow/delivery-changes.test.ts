import { hashHandoverCode } from '../../domain/handover-code-hash';
import { FINAL_DROP } from '../../domain/lifecycle';
import {
  acceptUpdate,
  cancelUpdate,
  changeBookingUpdate,
  completeStopUpdate,
  deliverUpdate,
  departUpdate,
  pickupUpdate,
  paymentSettledSignal,
  stateQuery,
  type DeliveryChange,
} from '../../workflows/messages';
import { priceRoute } from '../../domain/pricing';
import { deliveryInput, FakeWorld, KOFI, refusalOf, useWorkflowEnv } from './workflow-env';

const env = useWorkflowEnv();
const STOPS = [
  { lat: 5.58, lng: -0.21 },
  { lat: 5.57, lng: -0.22 },
];
const change = (fields: Partial<DeliveryChange>): DeliveryChange => ({ stops: [], ...fields });

describe("a partner's change of recipients", () => {
  it('is written at once in any status before the hand-over, with no status change', async () => {
    const world = new FakeWorld();
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(deliveryInput({ stops: STOPS }));
      await handle.executeUpdate(changeBookingUpdate, { args: [change({ recipientName: 'Efua Mensah', packageDescription: null })] });
      await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
      await handle.executeUpdate(pickupUpdate, { args: [KOFI] });
      const after = await handle.executeUpdate(changeBookingUpdate, { args: [change({ stops: [{ index: 1, recipientPhone: '+233241234567' }] })] });
      expect(after.status).toBe('picked_up');
      await handle.executeUpdate(cancelUpdate).catch(() => undefined);
    });
    expect(world.changes).toEqual([
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
      const send = (c: DeliveryChange) => refusalOf(handle.executeUpdate(changeBookingUpdate, { args: [c] }));
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
    expect(world.changes).toEqual([]);
  });

  it('issues new codes to the drops whose phone changed on an otp delivery; the old code no longer delivers', async () => {
    const world = new FakeWorld();
    const input = deliveryInput({ verificationMethod: 'otp', stops: STOPS });
    world.issuedCodes.set(FINAL_DROP, hashHandoverCode(input.deliveryId, FINAL_DROP, '111111'));
    await env().withWorker(world, async () => {
      const handle = await env().startDelivery(input);
      // Two changes sent before the worker takes either: both are applied, in order.
      await Promise.all([
        handle.executeUpdate(changeBookingUpdate, { args: [change({ recipientPhone: '+233241234567' })] }),
        handle.executeUpdate(changeBookingUpdate, { args: [change({ stops: [{ index: 1, recipientPhone: '+233201234567', recipientName: 'Kwame' }] })] }),
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
    expect(world.changes).toHaveLength(2);
    expect(world.reissuedCodes.sort()).toEqual([[1], [FINAL_DROP]].sort());
  });

  describe('of places, while pending', () => {
    const input = () => deliveryInput({ stops: STOPS });
    const routeOf = (i: ReturnType<typeof input>) => [i.pickup, ...i.stops, i.dropoff];
    /** A change of the final drop-off's place, priced on `from` at `totalFare` pesewas. */
    const move = (from: { lat: number; lng: number }[], totalFare: number, point = { lat: 5.55, lng: -0.25 }): DeliveryChange => ({
      stops: [],
      address: 'Osu, Oxford Street',
      point,
      repricing: { changeId: crypto.randomUUID(), pricedFrom: from, fare: { ...priceRoute(9_000), totalFare } },
    });

    it('debits a higher fare’s difference on a reference of its own, beside the booking’s debit', async () => {
      const world = new FakeWorld();
      world.debit = { answer: { state: 'pending' } };
      const i = input();
      await env().withWorker(world, async () => {
        const handle = await env().startDelivery(i);
        const after = await handle.executeUpdate(changeBookingUpdate, { args: [move(routeOf(i), 1800)] });
        expect(after.status).toBe('pending');
        // The network confirms each debit by its own reference.
        await handle.signal(paymentSettledSignal, { state: 'paid', reference: `${i.deliveryId}.1` });
        await handle.signal(paymentSettledSignal, { state: 'paid' });
        await handle.executeUpdate(cancelUpdate);
        await handle.result();
      });
      expect(world.debitRequests.sort()).toEqual([i.deliveryId, `${i.deliveryId}.1`].sort());
      expect(world.payments).toEqual(
        expect.arrayContaining([
          { state: 'paid', reason: null, confirmed: true },
          { state: 'paid', reason: null, confirmed: true, reference: `${i.deliveryId}.1` },
        ]),
      );
    });

    it('debits nothing for a fare that is not higher', async () => {
      const world = new FakeWorld();
      const i = input();
      await env().withWorker(world, async () => {
        const handle = await env().startDelivery(i);
        await handle.executeUpdate(changeBookingUpdate, { args: [move(routeOf(i), 1200)] });
        await handle.executeUpdate(cancelUpdate);
        await handle.result();
      });
      expect(world.debitRequests).toEqual([i.deliveryId]);
      expect(world.changes).toHaveLength(1);
    });

    it('refuses a change priced on a route another change has moved, and takes it priced anew', async () => {
      const world = new FakeWorld();
      const i = input();
      await env().withWorker(world, async () => {
        const handle = await env().startDelivery(i);
        const first = move(routeOf(i), 1500, { lat: 5.55, lng: -0.25 });
        await handle.executeUpdate(changeBookingUpdate, { args: [first] });
        const stale = move(routeOf(i), 1600, { lat: 5.54, lng: -0.26 });
        expect(await refusalOf(handle.executeUpdate(changeBookingUpdate, { args: [stale] }))).toMatchObject({
          type: 'Conflict',
          details: { status: 'pending' },
        });
        const moved = [...routeOf(i).slice(0, -1), { lat: 5.55, lng: -0.25 }];
        await handle.executeUpdate(changeBookingUpdate, { args: [move(moved, 1600, { lat: 5.54, lng: -0.26 })] });
        await handle.executeUpdate(cancelUpdate);
        await handle.result();
      });
      expect(world.changes.map((c) => c.point)).toEqual([
        { lat: 5.55, lng: -0.25 },
        { lat: 5.54, lng: -0.26 },
      ]);
    });

    it('refuses an accept while a change of places is being written; the rider tries again and takes the moved job', async () => {
      const world = new FakeWorld();
      let release = () => undefined as void;
      world.changeGate = new Promise((resolve) => (release = resolve));
      const writing = new Promise<void>((resolve) => (world.onChangeWriting = resolve));
      const i = input();
      await env().withWorker(world, async () => {
        const handle = await env().startDelivery(i);
        const changing = handle.executeUpdate(changeBookingUpdate, { args: [move(routeOf(i), 1800)] });
        await writing;
        expect(await refusalOf(handle.executeUpdate(acceptUpdate, { args: [KOFI] }))).toMatchObject({
          type: 'Conflict',
          message: 'The partner is changing where this job goes; try again in a moment',
          details: { status: 'pending' },
        });
        release();
        await changing;
        expect((await handle.executeUpdate(acceptUpdate, { args: [KOFI] })).status).toBe('accepted');
        await handle.executeUpdate(cancelUpdate);
        await handle.result();
      });
      expect(world.statuses()).toEqual(['accepted', 'cancelled']);
      expect(world.changes).toHaveLength(1);
    });

    it('refuses places once a rider has the job, and still takes recipients', async () => {
      const world = new FakeWorld();
      const i = input();
      await env().withWorker(world, async () => {
        const handle = await env().startDelivery(i);
        await handle.executeUpdate(acceptUpdate, { args: [KOFI] });
        expect(await refusalOf(handle.executeUpdate(changeBookingUpdate, { args: [change({ address: 'Somewhere else' })] }))).toMatchObject({
          type: 'InvalidTransition',
          message: 'Addresses and coordinates change only while the delivery is pending; it is accepted',
          details: { status: 'accepted' },
        });
        await handle.executeUpdate(changeBookingUpdate, { args: [change({ recipientName: 'Efua Mensah' })] });
        await handle.executeUpdate(cancelUpdate);
        await handle.result();
      });
      expect(world.changes).toEqual([{ stops: [], recipientName: 'Efua Mensah' }]);
    });
  });
});
