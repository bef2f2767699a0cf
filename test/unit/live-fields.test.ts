import { deliveryView, liveFieldsOf, recordLive, settledDeliveryView, withRecordLive, type DeliveryParts } from '../../domain/delivery-view';
import { settledTrackingView, trackingLive, withTrackingLive } from '../../domain/tracking-view';
import type { DeliveryStop, Rider } from '../../db/entities';
import { deliveryRow } from '../helpers/delivery-rows';

const times = { pickup: '2026-11-29T10:06:12.000Z', dropoff: '2026-11-29T10:31:40.000Z', stops: ['2026-11-29T10:19:05.000Z'] };
const locatedAt = new Date('2026-11-29T10:02:41.118Z');

function parts(status: string): DeliveryParts {
  const delivery = deliveryRow({
    id: '5f0c2b9a-1111-4222-8333-944455556666',
    status,
    paymentMethodId: '6a0c2b9a-1111-4222-8333-944455556666',
    riderId: 'r1',
  });
  const stop = {
    position: 0,
    dropoffAddress: 'Osu Oxford Street, Accra',
    dropoffLat: 5.556,
    dropoffLng: -0.18,
    recipientName: 'Kofi Mensah',
    recipientPhone: '+233201234567',
    packageSize: 'small',
    status: 'pending',
  } as unknown as DeliveryStop;
  const rider = { id: 'r1', name: 'Kwame Asante Boateng', vehicle: 'Motorbike', rating: '4.80', lat: 5.5512, lng: -0.2031, locatedAt } as unknown as Rider;
  return { delivery, stops: [stop], events: [], fareChanges: [], rider, eta: { finalMin: 32, legsMin: [19], times, fresh: true } };
}

describe('a record’s live fields', () => {
  it('go where the settled record keeps their nulls, so every key stays in its place', () => {
    const whole = parts('accepted');
    const settled = settledDeliveryView(whole, 'https://deliveries.example.com');
    const placed = withRecordLive(settled, recordLive('accepted', liveFieldsOf(whole), whole.eta?.times));

    expect(Object.keys(placed)).toEqual(Object.keys(settled.view));
    expect(Object.keys(placed.rider ?? {})).toEqual(Object.keys(settled.view.rider ?? {}));
    expect(placed).toMatchObject({ pickup_eta: times.pickup, dropoff_eta: times.dropoff, additional_stops: [{ eta: times.stops[0] }] });
    expect(placed.rider).toMatchObject({ lat: 5.5512, lng: -0.2031, located_at: '2026-11-29T10:02:41.118Z' });
    expect(JSON.stringify(placed)).toBe(JSON.stringify(deliveryView(whole, 'https://deliveries.example.com')));
  });

  it('give equal JSON for equal figures, in whatever order their keys were read', () => {
    const live = liveFieldsOf(parts('in_transit'));
    const asJsonbKeepsThem = { stops: times.stops, pickup: times.pickup, dropoff: times.dropoff };
    expect(JSON.stringify(recordLive('in_transit', live, asJsonbKeepsThem))).toBe(JSON.stringify(recordLive('in_transit', live, times)));
  });

  it('are all null once the job has ended, whatever the rider reports', () => {
    const whole = parts('delivered');
    const live = recordLive('delivered', liveFieldsOf(whole), times);
    expect(live).toEqual({ position: null, times: null });
    const placed = withRecordLive(settledDeliveryView(whole, 'https://deliveries.example.com'), live);
    expect(placed).toMatchObject({ pickup_eta: null, dropoff_eta: null, rider: { lat: null, lng: null, located_at: null } });
  });
});

describe('the tracking view’s live fields', () => {
  const row = (status: string) => ({
    id: '5f0c2b9a-1111-4222-8333-944455556666',
    status,
    package_size: 'small',
    pickup_address: 'Makola Market, Accra',
    pickup_lat: 5.5497,
    pickup_lng: -0.2096,
    dropoff_address: 'Kotoka International Airport',
    dropoff_lat: 5.6052,
    dropoff_lng: -0.1668,
    recipient_name: 'Ama Serwaa',
    rider_name: 'Kwame Asante Boateng',
    rider_vehicle: 'Motorbike',
    rider_rating: '4.80',
    stops: [{ position: 0, dropoff_lat: 5.556, dropoff_lng: -0.18, status: 'pending' }],
    events: [],
  });
  const live = { position: { lat: 5.5512, lng: -0.2031, locatedAt: null }, eta: { finalMin: 32, legsMin: [19], times, fresh: true } };

  it('show where the rider is and the minutes to each drop while they are on the job', () => {
    const settled = settledTrackingView(row('picked_up'), 'DLV');
    const placed = withTrackingLive(settled, trackingLive(settled, live, live.eta));
    expect(Object.keys(placed)).toEqual(Object.keys(settled.view));
    expect(placed).toMatchObject({ eta_min: 32, rider: { lat: 5.5512, lng: -0.2031 }, stops: [{ eta_min: 19 }] });
  });

  it('show neither once the job has ended', () => {
    const settled = settledTrackingView(row('delivered'), 'DLV');
    expect(trackingLive(settled, live, live.eta)).toEqual({ position: null, finalMin: null, stopsMin: [null] });
  });
});
