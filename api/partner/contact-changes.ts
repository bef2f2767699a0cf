import * as deliveries from '../../db/deliveries';
import type { DeliveryParts } from '../../domain/delivery-view';
import { refusalFor } from '../../domain/steps';
import { dropsTouched, type ContactChange, type DropContactChange } from '../../domain/contact-change';
import { changeContactsUpdate } from '../../workflows/messages';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import type { DeliveryChangeRequest } from '../openapi/schemas';
import { throwIfRefused } from '../refusals';
import { sendDeliveryUpdate } from '../temporal/delivery-updates';
import { snapshotOf } from './delivery-snapshot';

type DropFields = Pick<DeliveryChangeRequest, 'recipient_name' | 'recipient_phone' | 'package_description'>;

/** The fields of one drop the partner named, as the workflow takes them. */
function dropChange(fields: DropFields): DropContactChange {
  return {
    ...(fields.recipient_name !== undefined && { recipientName: fields.recipient_name }),
    ...(fields.recipient_phone !== undefined && { recipientPhone: fields.recipient_phone }),
    ...(fields.package_description !== undefined && { packageDescription: fields.package_description }),
  };
}

/** `PATCH /partner/deliveries/{id}` as the workflow's `changeContacts` update takes it. */
export function contactChangeOf(body: DeliveryChangeRequest): ContactChange {
  return { ...dropChange(body), stops: (body.additional_stops ?? []).map((stop) => ({ index: stop.index, ...dropChange(stop) })) };
}

/**
 * A partner's change of recipients: refused first on the read model by the step rules (a fast,
 * clear answer that holds while Temporal is unreachable), then sent to the workflow, the single
 * writer, which checks it again on its own state and writes it.
 */
export function createContactChanges(deps: AppDeps) {
  const { orm } = deps;
  return async function changeContacts(parts: DeliveryParts, body: DeliveryChangeRequest): Promise<void> {
    const change = contactChangeOf(body);
    if (dropsTouched(change).length === 0) {
      throw ApiError.badRequest('The request changes nothing', { body: 'name recipient_name, recipient_phone, package_description or additional_stops' });
    }
    throwIfRefused(refusalFor(snapshotOf(parts), { kind: 'change_contacts', stops: change.stops.map((s) => s.index) }));
    await sendDeliveryUpdate(
      deps,
      parts.delivery.id,
      (handle) => handle.executeUpdate(changeContactsUpdate, { args: [change] }),
      () => deliveries.statusOf(orm.em.fork(), parts.delivery.id),
    );
  };
}
