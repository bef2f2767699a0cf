import type { Settings } from '../../config/settings';
import type { MobileMoneyGateway } from './gateway';
import { PaystackGateway } from './paystack';
import { SandboxNetwork, type SandboxLedger } from './sandbox';

/**
 * The gateway for each mode. Test keys always use the sandbox network, whatever PAYMENT_GATEWAY
 * says, so no test booking can ever move real money; live keys use PAYMENT_GATEWAY.
 */
export function selectGateways(settings: Settings, sandboxLedger: SandboxLedger) {
  const sandbox = new SandboxNetwork({ ledger: sandboxLedger, confirmMs: settings.sandboxConfirmMs });
  const live: MobileMoneyGateway =
    settings.paymentGateway === 'paystack'
      ? new PaystackGateway({
          secretKey: settings.paystackSecretKey as string,
          baseUrl: settings.paystackBaseUrl,
          timeoutMs: settings.paystackTimeoutMs,
          // Used only when a charge carries no email of its own (every debit passes the partner's).
          defaultEmail: `payments@${new URL(settings.siteUrl).hostname}`,
        })
      : sandbox;
  return { sandbox, gateways: { live, test: sandbox as MobileMoneyGateway } };
}
