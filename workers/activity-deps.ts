import type { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ActivityDeps } from '../activities/deps';
import { AxiosWebhookHttp } from '../activities/webhook-http';
import type { Logger } from '../config/logger';
import { webhooksMayReachPrivateAddresses, type Settings } from '../config/settings';
import * as debits from '../db/debits';
import { outboxStore } from '../db/sms-outbox';
import { parseDebitReference } from '../domain/debit-reference';
import { deliveryWorkflowId } from '../domain/reference';
import type { MobileMoneyGateway } from '../integrations/mobile-money/gateway';
import type { SandboxNetwork } from '../integrations/mobile-money/sandbox';
import { selectMapProviders } from '../integrations/select';
import { HttpSms } from '../integrations/sms/http-sms';
import { OutboxSms } from '../integrations/sms/outbox';
import type { PhotoStore } from '../integrations/storage/photo-store';
import { selectPhotoStore } from '../integrations/storage/select';
import { paymentSettledSignal } from '../workflows/messages';

/** The real outside systems the activities use, from settings. Tests build theirs the same way. */
export function activityDeps(input: {
  settings: Settings;
  orm: MikroORM;
  temporal: Client;
  logger: Logger;
  gateways: { live: MobileMoneyGateway; test: MobileMoneyGateway };
  /** The API's photo store; by default the one PHOTO_STORE names, as the API's. */
  photos?: PhotoStore;
}): ActivityDeps {
  const { settings, orm } = input;
  const outbox = new OutboxSms(outboxStore(() => orm.em.fork()));
  return {
    ...input,
    photos: input.photos ?? selectPhotoStore(settings),
    sms: {
      live:
        settings.smsProvider === 'http'
          ? new HttpSms({ url: settings.smsUrl as string, apiKey: settings.smsApiKey as string, sender: settings.smsSender })
          : outbox,
      // Test-mode deliveries are played by a robo rider: nobody is texted a code for them.
      test: outbox,
    },
    // The tracking view's provider: a callback's ETA is the figure the view shows.
    eta: selectMapProviders(settings, input.logger).eta,
    webhookHttp: new AxiosWebhookHttp({
      timeoutMs: settings.webhookTimeoutSeconds * 1000,
      allowPrivateAddresses: webhooksMayReachPrivateAddresses(settings.nodeEnv),
      userAgent: 'PartnerDeliveryService-Webhooks/1.0',
    }),
  };
}

/** The sandbox network confirms debits on its own, like a gateway's callback: tell the workflow. */
export function signalWhenDebitsSettle(sandbox: SandboxNetwork, temporal: Client, orm: MikroORM): void {
  sandbox.onSettled(async (reference, result) => {
    const debit = parseDebitReference(reference);
    if (result.state === 'pending' || !debit) return;
    await temporal.workflow
      .getHandle(deliveryWorkflowId(debit.deliveryId))
      .signal(paymentSettledSignal, { state: result.state, reason: result.reason, reference })
      // A delivery that has finished: the next reconciliation checks its debit instead.
      .catch(() => debits.requestRecheck(orm.em.fork(), reference).catch(() => undefined));
  });
}
