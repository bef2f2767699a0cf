import type { DeliveryParts } from '../../domain/delivery-view';
import type { DeliverySnapshot } from '../../domain/steps';

/** A delivery as the step rules (domain/steps.ts) see it, from its read in Postgres. */
export function snapshotOf({ delivery, stops }: DeliveryParts): DeliverySnapshot {
  return {
    status: delivery.status,
    stopsCompleted: stops.filter((stop) => stop.status === 'delivered').length,
    stopsTotal: stops.length,
    verificationMethod: delivery.verificationMethod,
    riderId: delivery.riderId ?? null,
  };
}
