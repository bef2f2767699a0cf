import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/lifecycle';
import { REFUSAL, refusalFor, type DeliverySnapshot } from '../../domain/steps';

const KOFI = 'rider-kofi';

/** A delivery Kofi holds, on its way, with two additional stops and no proof asked for. */
function onTheWay(overrides: Partial<DeliverySnapshot> = {}): DeliverySnapshot {
  return { status: 'in_transit', stopsCompleted: 0, stopsTotal: 2, verificationMethod: 'none', riderId: KOFI, ...overrides };
}

describe('the step rules the workflow and the API share', () => {
  it('lets an accept through only while the job is pending, and says so with the status otherwise', () => {
    expect(refusalFor(onTheWay({ status: 'pending', riderId: null }), { kind: 'accept' })).toBeNull();
    for (const status of DELIVERY_STATUSES.filter((s) => s !== 'pending')) {
      expect(refusalFor(onTheWay({ status, riderId: 'rider-esi' }), { kind: 'accept' })).toEqual({
        kind: REFUSAL.conflict,
        message: 'This job is no longer available',
        details: { status },
      });
    }
  });

  it('lets a rider take over a job an operator offered again, as it stands, and nothing that has ended', () => {
    const taken = DELIVERY_STATUSES.filter((status) => refusalFor(onTheWay({ status, riderId: null }), { kind: 'accept' }) === null);
    expect(taken).toEqual(['pending', 'accepted', 'picked_up', 'in_transit']);
  });

  it('reassigns only a job under way, and never to the rider who holds it', () => {
    expect(refusalFor(onTheWay({ status: 'picked_up' }), { kind: 'reassign', toRiderId: 'rider-esi' })).toBeNull();
    expect(refusalFor(onTheWay({ status: 'picked_up' }), { kind: 'reassign', toRiderId: null })).toBeNull();
    expect(refusalFor(onTheWay({ status: 'picked_up' }), { kind: 'reassign', toRiderId: KOFI })).toMatchObject({ kind: REFUSAL.conflict });
    for (const status of ['pending', 'delivered', 'cancelled', 'expired'] as const) {
      expect(refusalFor(onTheWay({ status }), { kind: 'reassign', toRiderId: 'rider-esi' })).toEqual({
        kind: REFUSAL.invalidTransition,
        message: `A delivery that is ${status} has no rider to replace`,
        details: { status },
      });
    }
  });

  it('takes a cancel while pending or accepted, and again once cancelled; refuses it past that with the status', () => {
    const taken = DELIVERY_STATUSES.filter((status) => refusalFor(onTheWay({ status }), { kind: 'cancel' }) === null);
    expect(taken).toEqual(['pending', 'accepted', 'cancelled']);
    expect(refusalFor(onTheWay({ status: 'picked_up' }), { kind: 'cancel' })).toEqual({
      kind: REFUSAL.invalidTransition,
      message: 'A delivery that is picked_up can no longer be cancelled',
      details: { status: 'picked_up' },
    });
  });

  it('expires only a job still pending, as the dispatch deadline does, and says why with the status otherwise', () => {
    const taken = DELIVERY_STATUSES.filter((status) => refusalFor(onTheWay({ status, riderId: null }), { kind: 'expire' }) === null);
    expect(taken).toEqual(['pending']);
    expect(refusalFor(onTheWay({ status: 'accepted' }), { kind: 'expire' })).toEqual({
      kind: REFUSAL.invalidTransition,
      message: 'A delivery that is accepted can no longer expire',
      details: { status: 'accepted' },
    });
  });

  it('follows the transition table for pick-up and departure, naming the step in words', () => {
    const allowed = (kind: 'pickup' | 'depart') =>
      DELIVERY_STATUSES.filter((status: DeliveryStatus) => refusalFor(onTheWay({ status }), { kind, riderId: KOFI }) === null);
    expect(allowed('pickup')).toEqual(['accepted']);
    expect(allowed('depart')).toEqual(['picked_up']);
    expect(refusalFor(onTheWay({ status: 'accepted' }), { kind: 'depart', riderId: KOFI })).toMatchObject({
      kind: REFUSAL.invalidTransition,
      message: 'Cannot depart while the delivery is accepted',
    });
  });

  it('hides a job another rider holds, whatever its status, and never tells its status', () => {
    for (const status of ['accepted', 'in_transit', 'delivered'] as const) {
      expect(refusalFor(onTheWay({ status }), { kind: 'pickup', riderId: 'rider-esi' })).toMatchObject({
        kind: REFUSAL.notFound,
        message: 'This delivery is not yours',
      });
    }
  });

  it('refuses a step on a job offered but not yet taken as out of order, not as unknown', () => {
    expect(refusalFor(onTheWay({ status: 'pending', riderId: null }), { kind: 'pickup', riderId: KOFI })).toMatchObject({
      kind: REFUSAL.invalidTransition,
      message: 'Cannot pick up while the delivery is pending',
    });
  });

  it('hands stops over in order: a later stop names the next one, an earlier one is already done, a missing one is unknown', () => {
    const stop = (index: number, stopsCompleted = 1) =>
      refusalFor(onTheWay({ stopsCompleted }), { kind: 'complete_stop', riderId: KOFI, index, proof: 'none' });
    expect(stop(1)).toBeNull();
    expect(stop(1, 0)).toEqual({
      kind: REFUSAL.invalidTransition,
      message: 'Stops are handed over in order; next is stop 0',
      details: { status: 'in_transit', next_stop: 0 },
    });
    expect(stop(0)).toMatchObject({ kind: REFUSAL.invalidTransition, message: 'This stop is already handed over' });
    expect(stop(2)).toMatchObject({ kind: REFUSAL.notFound, message: 'This delivery has no such stop' });
    expect(stop(-1)).toMatchObject({ kind: REFUSAL.notFound });
    expect(refusalFor(onTheWay({ status: 'picked_up' }), { kind: 'complete_stop', riderId: KOFI, index: 0, proof: 'none' })).toMatchObject({
      message: 'Cannot complete a stop while the delivery is picked_up',
    });
  });

  it('takes a change of recipients until each drop is handed over, and none once the delivery ended', () => {
    const change = (stops: number[]) => ({ kind: 'change_booking' as const, stops, places: false });
    for (const status of ['pending', 'accepted', 'picked_up', 'in_transit'] as const) {
      expect(refusalFor(onTheWay({ status }), change([0, 1]))).toBeNull();
    }
    expect(refusalFor(onTheWay({ stopsCompleted: 1 }), change([0]))).toEqual({
      kind: REFUSAL.invalidTransition,
      message: 'Stop 0 is already handed over',
      details: { status: 'in_transit', additional_stops: 'stop 0 is already handed over' },
    });
    expect(refusalFor(onTheWay({ stopsCompleted: 1 }), change([1]))).toBeNull();
    expect(refusalFor(onTheWay(), change([2]))).toMatchObject({ kind: REFUSAL.invalidTransition, details: { additional_stops: 'has no stop 2' } });
    for (const status of ['delivered', 'cancelled', 'expired'] as const) {
      expect(refusalFor(onTheWay({ status }), change([]))).toEqual({
        kind: REFUSAL.invalidTransition,
        message: `A delivery that is ${status} can no longer be changed`,
        details: { status },
      });
    }
  });

  it('moves or renames a place only while the delivery is pending', () => {
    const places = { kind: 'change_booking' as const, stops: [0], places: true };
    expect(refusalFor(onTheWay({ status: 'pending' }), places)).toBeNull();
    for (const status of ['accepted', 'picked_up', 'in_transit'] as const) {
      expect(refusalFor(onTheWay({ status }), places)).toEqual({
        kind: REFUSAL.invalidTransition,
        message: `Addresses and coordinates change only while the delivery is pending; it is ${status}`,
        details: { status },
      });
    }
    expect(refusalFor(onTheWay({ status: 'delivered' }), places)).toMatchObject({ message: 'A delivery that is delivered can no longer be changed' });
  });

  it('keeps the final drop until every stop is handed over, naming the next stop', () => {
    expect(refusalFor(onTheWay({ stopsCompleted: 1 }), { kind: 'deliver', riderId: KOFI, proof: 'none' })).toEqual({
      kind: REFUSAL.invalidTransition,
      message: 'Every additional stop must be handed over first',
      details: { status: 'in_transit', next_stop: 1 },
    });
    expect(refusalFor(onTheWay({ stopsCompleted: 2 }), { kind: 'deliver', riderId: KOFI, proof: 'none' })).toBeNull();
  });

  it('asks for the proof the booking named, at every hand-over', () => {
    const otp = onTheWay({ verificationMethod: 'otp', stopsTotal: 0 });
    expect(refusalFor(otp, { kind: 'deliver', riderId: KOFI, proof: 'none' })).toEqual({
      kind: REFUSAL.verificationFailed,
      message: 'The recipient’s code is required',
      details: { status: 'in_transit', otp: 'is required' },
    });
    expect(refusalFor(otp, { kind: 'deliver', riderId: KOFI, proof: 'otp' })).toBeNull();
    const photo = onTheWay({ verificationMethod: 'photo' });
    expect(refusalFor(photo, { kind: 'complete_stop', riderId: KOFI, index: 0, proof: 'otp' })).toMatchObject({
      kind: REFUSAL.verificationFailed,
      message: 'A photo of the hand-over is required',
      details: { photo: 'is required (multipart field "photo")' },
    });
    expect(refusalFor(photo, { kind: 'complete_stop', riderId: KOFI, index: 0, proof: 'photo' })).toBeNull();
  });
});
