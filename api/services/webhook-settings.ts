import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Settings } from '../../config/settings';
import type { KeyMode } from '../../domain/api-key';
import { isoOffset } from '../../domain/delivery-view';
import { withinTemporalDeadline } from './temporal-deadline';
import { checkWebhookUrl } from './webhook-url';
import { deliveryTimings } from './timings';

/** Callback settings of one partner in one mode, shared by the partner API and the dashboard. */
export interface WebhookOwner {
  partnerId: string;
  mode: KeyMode;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

/** Sets (or with null, clears) the callback URL; returns the fresh secret, shown this once. */
export async function setWebhookUrl(
  { orm, settings }: { orm: MikroORM; settings: Settings },
  { partnerId, mode }: WebhookOwner,
  raw: string | null,
): Promise<{ url: string | null; secret: string | null }> {
  const url = raw === null ? null : await checkWebhookUrl(raw, settings.nodeEnv === 'production');
  // A fresh secret every time a URL is set: the previous one stops working at once.
  const secret = url === null ? null : newWebhookSecret();
  await orm.em.fork().execute(
    `insert into webhook_endpoints (partner_id, mode, url, secret, updated_at) values (?, ?, ?, ?, now())
     on conflict (partner_id, mode) do update set url = excluded.url, secret = excluded.secret, updated_at = now()`,
    [partnerId, mode, url, secret],
  );
  return { url, secret };
}

/** Sends a stored callback again: the same bytes, signed with the current secret, with the usual retries. */
export async function startWebhookSend(
  { orm, temporal, settings }: { orm: MikroORM; temporal: Client; settings: Settings },
  eventId: string,
  previousState: string,
): Promise<void> {
  const em = orm.em.fork();
  // Pending before the send starts: a fast send's outcome must not be overwritten afterwards.
  await em.execute(`update webhook_events set state = 'pending' where id = ?`, [eventId]);
  try {
    await withinTemporalDeadline({ temporal, settings }, () =>
      temporal.workflow.start('webhookRedeliveryWorkflow', {
        workflowId: `webhook-redelivery-${eventId}-${randomUUID()}`,
        taskQueue: settings.temporalTaskQueue,
        args: [{ eventId, timings: deliveryTimings(settings) }],
      }),
    );
  } catch (error) {
    await em.execute('update webhook_events set state = ? where id = ?', [previousState, eventId]);
    throw error;
  }
}

/**
 * A `webhook.test` callback, so a partner can check the receiver and its signature check
 * before any delivery happens. It belongs to no delivery and goes through the usual sender.
 */
export async function sendTestEvent(
  deps: { orm: MikroORM; temporal: Client; settings: Settings },
  { partnerId, mode }: WebhookOwner,
): Promise<string> {
  const id = randomUUID();
  const body = JSON.stringify({
    event: 'webhook.test',
    delivery_id: null,
    status: null,
    occurred_at: isoOffset(new Date()),
    data: { message: 'A test callback from the dashboard. Check its signature as you would for a real event.' },
  });
  await deps.orm.em
    .fork()
    .execute(`insert into webhook_events (id, partner_id, mode, delivery_id, event, body) values (?, ?, ?, null, 'webhook.test', ?)`, [
      id,
      partnerId,
      mode,
      body,
    ]);
  await startWebhookSend(deps, id, 'pending');
  return id;
}
