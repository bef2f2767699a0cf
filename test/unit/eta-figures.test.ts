import { etaFigures, etaRoute, recordEta, type EtaStop, type EtaTrip } from '../../domain/eta';

const trip = (status: string): EtaTrip => ({ status, pickupLat: 5.5, pickupLng: -0.2, dropoffLat: 5.6, dropoffLng: -0.16 });
const stop = (position: number, status = 'pending'): EtaStop => ({ position, status, dropoffLat: 5.55 + position / 100, dropoffLng: -0.18 });
const rider = { lat: 5.51, lng: -0.21 };
const now = new Date('2026-11-29T10:00:00.000Z');
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

describe('the ETA of a trip', () => {
  it('is asked from the rider through the pickup, the stops still to do and the drop while the parcel waits', () => {
    expect(etaRoute(trip('accepted'), [stop(1), stop(0, 'delivered')], rider)).toEqual([
      rider,
      { lat: 5.5, lng: -0.2 },
      { lat: 5.56, lng: -0.18 },
      { lat: 5.6, lng: -0.16 },
    ]);
    expect(etaRoute(trip('in_transit'), [stop(0)], rider)).toEqual([rider, { lat: 5.55, lng: -0.18 }, { lat: 5.6, lng: -0.16 }]);
  });

  it('is not asked before a rider accepts, after the trip, or without the rider’s position', () => {
    for (const status of ['pending', 'delivered', 'cancelled', 'expired']) expect(etaRoute(trip(status), [], rider)).toBeNull();
    expect(etaRoute(trip('accepted'), [], null)).toBeNull();
  });

  it('gives the pickup its own time while accepted, and each pending stop and the drop their cumulative times', () => {
    const figures = etaFigures(trip('accepted'), [stop(0), stop(1, 'delivered'), stop(2)], [300, 610, 200.4, 89.6], now);

    expect(figures.times).toEqual({ pickup: at(300), stops: [at(910), null, at(1110)], dropoff: at(1200) });
    // The tracking view's minutes run from the rider to each drop, rounded up, the pickup leg included.
    expect(figures.legsMin).toEqual([16, null, 19]);
    expect(figures.finalMin).toBe(20);
  });

  it('has no pickup time once the parcel is collected', () => {
    const figures = etaFigures(trip('picked_up'), [], [125], now);
    expect(figures.times).toEqual({ pickup: null, stops: [], dropoff: at(125) });
    expect(figures.finalMin).toBe(3);
  });

  it('shows the kept times in the record only while a rider is on the trip, and a stop’s only while it is still to do', () => {
    const times = { pickup: at(60), dropoff: at(600), stops: [at(300), at(400)] };

    const accepted = recordEta('accepted', times);
    expect([accepted.pickupEta, accepted.dropoffEta, accepted.stopEta(0, 'pending'), accepted.stopEta(1, 'delivered')]).toEqual([
      at(60),
      at(600),
      at(300),
      null,
    ]);
    // Times kept from the accept are not shown as a pickup still to come.
    expect(recordEta('in_transit', times)).toMatchObject({ pickupEta: null, dropoffEta: at(600) });
    for (const status of ['pending', 'delivered', 'cancelled', 'expired'] as const) {
      const shown = recordEta(status, times);
      expect([shown.pickupEta, shown.dropoffEta, shown.stopEta(0, 'pending')]).toEqual([null, null, null]);
    }
    expect(recordEta('accepted', null).dropoffEta).toBeNull();
  });
});
