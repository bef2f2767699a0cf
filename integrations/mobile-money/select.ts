import type { EntityManager } from '@mikro-orm/postgresql';
import type { Settings } from '../../config/settings';
import type { MobileMoneyGateway } from './gateway';
import { PaystackGateway } from './paystack';
import { SandboxNetwork } from './sandbox';

/** The gateway for each mode: test keys always use the sandbox; live keys use PAYMENT_GATEWAY. */
export function selectGateways(settings: Settings, em: () => EntityManager) {
  const sandbox = new SandboxNetwork({ em, confirmMs: settings.sandboxConfirmMs });
  const live: MobileMoneyGateway =
    settings.paymentGateway === 'paystack'
      ? new PaystackGateway({
          secretKey: settings.paystackSecretKey as string,
          baseUrl: settings.paystackBaseUrl,
          defaultEmail: `payments@${new URL(settings.siteUrl).hostname}`,
        })
      : sandbox;
  return { sandbox, gateways: { live, test: sandbox as MobileMoneyGateway } };
}
