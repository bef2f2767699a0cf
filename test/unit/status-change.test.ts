import type { DeliveryEvent, Rider } from '../../db/entities';
import { deliveryRow } from '../helpers/delivery-rows';
import { deliveryView, type DeliveryParts } from '../../domain/delivery-view';
import { partsAfterStatusChange } from '../../domain/status-change';

const SITE = 'https://deliveries.example.com';
const times = { pickup: '2026-11-29T10:06:12.000Z', dropoff: '2026-11-29T10:31:40.000Z', stops: [] };
const rider = { id: 'r1', name: 'Kwame Asante Boateng', vehicle: 'Motorbike', rating: '4.80', lat: 5.5512, lng: -0.2031, locatedAt: new Date('2026-11-29T10:02:41.118Z') } as unknown as Rider;

function event(id: number, status: string, at: string): DeliveryEvent {
  return { id, deliveryId: 'd1', status, lat: null, lng: null, createdAt: new Date(at) } as unknown as DeliveryEvent;
}

/** A pending booking as the change's read finds it, with the rider about to accept. */
function pending(): DeliveryParts {
  const delivery = deliveryRow({ id: 'd1', reference: 'DLV-D1', status: 'pending', riderId: null, deliveredAt: null });
  return { delivery, stops: [], events: [event(7, 'pending', '2026-11-29T10:00:00.000Z')], fareChanges: [], rider, eta: null };
}

describe('a delivery as its status change leaves it', () => {
  it('has the accepting rider, the new trail entry and the ETA worked out for the change', () => {
    const figures = { finalMin: 31, legsMin: [], times };
    const after = partsAfterStatusChange(pending(), { status: 'accepted', riderId: 'r1', at: '2026-11-29T10:01:05.250Z' }, figures);
    const view = deliveryView(after, SITE);
    expect(view).toMatchObject({ status: 'accepted', rider_id: 'r1', pickup_eta: times.pickup, dropoff_eta: times.dropoff, delivered_at: null });
    expect(view.events).toEqual([
      { status: 'pending', created_at: '2026-11-29T10:00:00.000Z' },
      { status: 'accepted', created_at: '2026-11-29T10:01:05.250Z' },
    ]);
    expect(view.rider).toMatchObject({ id: 'r1', lat: 5.5512, lng: -0.2031 });
  });

  it('is handed over at the change’s time, and keeps the ETA it had when the change computed none', () => {
    const before = partsAfterStatusChange(pending(), { status: 'accepted', riderId: 'r1', at: '2026-11-29T10:01:05.250Z' }, { finalMin: 31, legsMin: [], times });
    const after = partsAfterStatusChange(before, { status: 'delivered', riderId: 'r1', at: '2026-11-29T10:40:00.000Z' }, null);
    expect(after.delivery).toMatchObject({ status: 'delivered', riderId: 'r1', deliveredAt: new Date('2026-11-29T10:40:00.000Z') });
    expect(after.eta).toEqual(before.eta);
    // A finished delivery shows no time ahead, whatever was kept.
    expect(deliveryView(after, SITE)).toMatchObject({ delivered_at: '2026-11-29T10:40:00.000Z', pickup_eta: null, dropoff_eta: null });
  });

  it('adds no second trail entry when a try before this one wrote it', () => {
    const change = { status: 'accepted' as const, riderId: 'r1', at: '2026-11-29T10:01:05.250Z' };
    const once = partsAfterStatusChange(pending(), change, null);
    const again = partsAfterStatusChange(once, change, null);
    expect(again.events.map((e) => e.status)).toEqual(['pending', 'accepted']);
    // Only an accept hands the job to the rider named: a later change keeps the job's own.
    expect(partsAfterStatusChange(once, { status: 'picked_up', riderId: 'someone-else', at: '2026-11-29T10:10:00.000Z' }, null).delivery.riderId).toBe('r1');
  });
});
