import { closestField, unknownFields } from '../../api/middleware/unknown-fields';
import { DeliveryChangeRequest } from '../../api/openapi/schemas';

describe('a field a request does not have', () => {
  it('is matched to the known field the partner most likely meant', () => {
    const known = ['dry_run', 'dropoff_lat', 'dropoff_lng', 'recipient_name', 'additional_stops'];
    expect(closestField('dryRun', known)).toBe('dry_run');
    expect(closestField('DRY-RUN', known)).toBe('dry_run');
    expect(closestField('stops', known)).toBe('additional_stops');
    expect(closestField('recipent_name', known)).toBe('recipient_name');
    expect(closestField('colour', known)).toBeUndefined();
  });

  it('is found at any depth of a change of a booking, and the known ones are let through', () => {
    const body = { dry_run: true, dryRun: true, recipient_name: 'Ama', additional_stops: [{ index: 0 }, { index: 1, dropoff_lattitude: 5.6 }] };
    expect(unknownFields(DeliveryChangeRequest, body)).toEqual({
      dryRun: 'is not a field of this request; did you mean dry_run?',
      'additional_stops[1].dropoff_lattitude': 'is not a field of this request; did you mean dropoff_lat?',
    });
    expect(unknownFields(DeliveryChangeRequest, { recipient_name: 'Ama', package_description: null, pickup_address: 'Osu' })).toEqual({});
  });
});
