import { debitReference, parseDebitReference } from '../../domain/debit-reference';
import { changesPlaces, routeAfter, sameRoute } from '../../domain/delivery-change';
import { amountPaid, bookedFare, fareAsked, fareDifference, type FareChange } from '../../domain/fare-change';

const ID = '3f1c2a9e-8d4b-4c1e-9a7f-2b6d5e4c3a21';
const change = (previousTotalFare: number, totalFare: number, debitState: FareChange['debitState']): FareChange => ({
  seq: 1,
  previousTotalFare,
  totalFare,
  debitAmount: Math.max(0, totalFare - previousTotalFare),
  debitState,
  createdAt: new Date(0),
});

describe('a change of places and what it costs', () => {
  it('names each debit of a delivery by a reference that leads back to it', () => {
    expect(debitReference(ID)).toBe(ID);
    expect(debitReference(ID, 2)).toBe(`${ID}.2`);
    expect(parseDebitReference(ID)).toEqual({ deliveryId: ID, changeSeq: 0 });
    expect(parseDebitReference(`${ID}.2`)).toEqual({ deliveryId: ID, changeSeq: 2 });
    for (const other of [`${ID}.0`, `${ID}.`, `${ID}.x`, `${ID}.1.2`, 'not-ours', `${ID}.01`]) expect(parseDebitReference(other)).toBeNull();
  });

  it('debits a higher fare’s difference and refunds nothing for a lower one', () => {
    expect(fareDifference(1500, 1800)).toEqual({ debit: 300, refund: 0 });
    expect(fareDifference(1800, 1500)).toEqual({ debit: 0, refund: 0 });
  });

  it('debits a rise after a fall only above the highest fare asked before, failed debits included', () => {
    // Booked at 1500, moved to 1800 (300 debited), back to 1500, then to 1800 again and on to 2000.
    const trail = [change(1500, 1800, 'paid'), { ...change(1800, 1500, null), seq: 2 }];
    expect(fareAsked(1500, trail)).toBe(1800);
    expect(fareDifference(fareAsked(1500, trail), 1800)).toEqual({ debit: 0, refund: 0 });
    expect(fareDifference(fareAsked(1500, trail), 2000)).toEqual({ debit: 200, refund: 0 });
    expect(fareAsked(1500, [])).toBe(1500);
    // A difference the network refused is still owed (the reconciliation may yet find it taken).
    expect(fareAsked(1500, [change(1500, 1800, 'failed'), { ...change(1800, 1500, null), seq: 2 }])).toBe(1800);
  });

  it('counts as paid what the network confirmed: the fare as booked, then each change’s difference', () => {
    const changes = [change(1500, 1800, 'paid'), { ...change(1800, 1600, null), seq: 2 }, { ...change(1600, 2000, 'failed'), seq: 3 }];
    expect(bookedFare(2000, changes)).toBe(1500);
    expect(bookedFare(1500, [])).toBe(1500);
    expect(amountPaid({ totalFare: 2000, paymentStatus: 'paid' }, changes)).toBe(1800);
    expect(amountPaid({ totalFare: 2000, paymentStatus: 'pending' }, changes)).toBe(300);
    expect(amountPaid({ totalFare: 1500, paymentStatus: 'failed' }, [])).toBe(0);
  });

  it('moves the points a change names and tells a change of places from one of recipients', () => {
    const route = [
      { lat: 5.55, lng: -0.21 },
      { lat: 5.56, lng: -0.18 },
      { lat: 5.61, lng: -0.17 },
    ];
    const moved = routeAfter(route, { stops: [{ index: 0, point: { lat: 5.65, lng: -0.19 } }], point: { lat: 5.6, lng: -0.2 } });
    expect(moved).toEqual([route[0], { lat: 5.65, lng: -0.19 }, { lat: 5.6, lng: -0.2 }]);
    expect(route[1]).toEqual({ lat: 5.56, lng: -0.18 });
    expect(sameRoute(route, [...route])).toBe(true);
    expect(sameRoute(route, moved)).toBe(false);
    expect(changesPlaces({ stops: [{ index: 0, address: 'Legon' }] })).toBe(true);
    expect(changesPlaces({ stops: [{ index: 0, recipientName: 'Ama' }], recipientPhone: '+233241234567' })).toBe(false);
  });
});
