import type { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../config/logger';
import type { Settings } from '../config/settings';
import type { DeliveryTimings } from '../domain/timings';
import type { MobileMoneyGateway } from '../integrations/mobile-money/gateway';
import type { EtaProvider } from '../integrations/routing/provider';
import type { SmsSender } from '../integrations/sms/sender';
import type { PhotoStore } from '../integrations/storage/photo-store';
import type { WebhookHttp } from './webhook-http';

/** Everything the activities reach outside the worker through; tests swap any of it. */
export interface ActivityDeps {
  orm: MikroORM;
  /** The gateway for each mode: test-mode debits always go to the sandbox network. */
  gateways: { live: MobileMoneyGateway; test: MobileMoneyGateway };
  /** Where hand-over codes are texted for each mode: test-mode recipients are never texted for real. */
  sms: { live: SmsSender; test: SmsSender };
  webhookHttp: WebhookHttp;
  /** Where the API keeps hand-over photos: the retention round removes those of old deliveries. */
  photos: PhotoStore;
  /** The traffic-aware ETA a status change stores with itself, so its callback carries it. */
  eta: EtaProvider;
  /**
   * For the robo rider, which drives test deliveries through the same updates a rider app sends,
   * and the booking sweeper, which starts the workflow an orphaned booking lacks.
   */
  temporal: Client;
  logger: Logger;
  /** The delivery timings go into the workflows the booking sweeper starts. */
  settings: DeliveryTimings &
    Pick<Settings, 'nodeEnv' | 'paymentGateway' | 'paystackSecretKey' | 'smsProvider' | 'smtpUrl' | 'riderFreshSeconds' | 'riderSilentMinutes' | 'riderOfflineMinutes'> & {
    siteUrl: string;
    webhookRetryInitialSeconds: number;
    webhookRetryCoefficient: number;
    /** How long a booking may stay unclaimed by a workflow before the sweeper counts it orphaned. */
    bookingOrphanAfterSeconds: number;
    /** Hand-over code texts per partner, mode and hour (SMS_PER_PARTNER_PER_HOUR); past it a code is kept, not texted. */
    smsPerPartnerPerHour: number;
  };
}
