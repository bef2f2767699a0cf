import type { DeliveryEvent } from '../db/entities';
import type { DeliveryParts } from './delivery-view';
import type { EtaFigures } from './eta';
import type { DeliveryStatus } from './lifecycle';

/** A status change as its one statement writes it (db/transitions.ts). */
export interface StatusChange {
  status: DeliveryStatus;
  /** The rider who takes the job when `status` is `accepted`; the job's own rider otherwise. */
  riderId: string | null;
  /** Workflow time of the change: the trail entry's time, and `delivered_at` for `delivered`. */
  at: string;
}

/**
 * The delivery as its status change leaves it, from its parts read just before: what the change's
 * statement writes (status, the rider taking the job, `delivered_at`, the trail entry unless the
 * status already has one, the ETA computed for it), so a webhook body is the Delivery at the
 * change without a read after the write. `parts.rider` is the rider the read found for the change
 * (db/transitions.ts reads the accepting rider for an accept).
 */
export function partsAfterStatusChange(parts: DeliveryParts, change: StatusChange, eta: EtaFigures | null): DeliveryParts {
  const { delivery } = parts;
  const at = new Date(change.at);
  const hasEntry = parts.events.some((e) => e.status === change.status);
  const lastId = parts.events.reduce((max, e) => Math.max(max, Number(e.id)), 0);
  const entry = { id: lastId + 1, deliveryId: delivery.id, status: change.status, lat: null, lng: null, createdAt: at } as DeliveryEvent;
  return {
    ...parts,
    delivery: {
      ...delivery,
      status: change.status,
      riderId: change.status === 'accepted' ? (change.riderId ?? delivery.riderId ?? null) : delivery.riderId,
      deliveredAt: change.status === 'delivered' ? at : delivery.deliveredAt,
    },
    events: hasEntry ? parts.events : [...parts.events, entry],
    eta: eta ? { finalMin: eta.finalMin, legsMin: eta.legsMin, times: eta.times, fresh: true } : parts.eta,
  };
}
