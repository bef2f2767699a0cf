import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { webhooksMayReachPrivateAddresses, type Settings } from '../../config/settings';
import * as webhookEndpoints from '../../db/webhook-endpoints';
import type { WebhookOwner } from '../../db/webhook-endpoints';
import * as webhookEvents from '../../db/webhook-events';
import { isoOffset } from '../../domain/delivery-view';
import type { KeyMode } from '../../domain/api-key';
import { deliveryTimings } from '../../domain/timings';
import { taskQueueFor } from '../../workflows/delivery/start';
import { webhookRedeliveryWorkflow } from '../../workflows/webhook-redelivery';
import { withinTemporalDeadline } from '../temporal/deadline';
import { checkWebhookUrl } from './webhook-url-check';

/** Callback settings of one partner in one mode, shared by the partner API and the dashboard. */

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

/** Sets (or with null, clears) the callback URL; returns the fresh secret, shown this once. */
export async function setWebhookUrl(
  { orm, settings }: { orm: MikroORM; settings: Settings },
  owner: WebhookOwner,
  raw: string | null,
): Promise<{ url: string | null; secret: string | null }> {
  const url = raw === null ? null : await checkWebhookUrl(raw, !webhooksMayReachPrivateAddresses(settings.nodeEnv));
  // A fresh secret every time a URL is set: the previous one stops working at once.
  const secret = url === null ? null : newWebhookSecret();
  await webhookEndpoints.set(orm.em.fork(), owner, { url, secret });
  return { url, secret };
}

/**
 * Why a callback cannot be sent again once its body was removed with its delivery's recipients
 * (RETENTION_DAYS after the delivery ended); the partner API and the dashboard both say it.
 */
export const BODY_REMOVED = 'This callback cannot be sent again: its body was removed with the recipients’ data, RETENTION_DAYS after the delivery ended';

/**
 * Sends a stored callback again: the same bytes, signed with the current secret, with the usual
 * retries, on the queue of the event's mode (test-mode sends take no live worker slot).
 */
export async function startWebhookSend(
  { orm, temporal, settings }: { orm: MikroORM; temporal: Client; settings: Settings },
  eventId: string,
  previousState: string,
  // Optional until the routes that redeliver pass their owner's mode; they default to live.
  mode: KeyMode = 'live',
): Promise<void> {
  const em = orm.em.fork();
  // Pending before the send starts: a fast send's outcome must not be overwritten afterwards.
  await webhookEvents.markPending(em, eventId);
  try {
    await withinTemporalDeadline({ temporal, settings }, () =>
      temporal.workflow.start(webhookRedeliveryWorkflow, {
        workflowId: `webhook-redelivery-${eventId}-${randomUUID()}`,
        taskQueue: taskQueueFor(settings.temporalTaskQueue, mode),
        args: [{ eventId, timings: deliveryTimings(settings) }],
      }),
    );
  } catch (error) {
    await webhookEvents.restoreState(em, eventId, previousState);
    throw error;
  }
}

/**
 * A `webhook.test` callback, so a partner can check the receiver and its signature check
 * before any delivery happens. It belongs to no delivery and goes through the usual sender.
 */
export async function sendTestEvent(
  deps: { orm: MikroORM; temporal: Client; settings: Settings },
  owner: WebhookOwner,
): Promise<string> {
  const id = randomUUID();
  const body = JSON.stringify({
    event: 'webhook.test',
    delivery_id: null,
    status: null,
    occurred_at: isoOffset(new Date()),
    data: { message: 'A test callback from the dashboard. Check its signature as you would for a real event.' },
  });
  await webhookEvents.insertTest(deps.orm.em.fork(), owner, { id, body });
  await startWebhookSend(deps, id, 'pending', owner.mode);
  return id;
}
