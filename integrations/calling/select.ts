import type { Settings } from '../../config/settings';
import { LocalCallBridge, type CallSessionStore } from './local-bridge';
import type { CallMasking } from './masking';
import { NumberPoolCalling, type NumberPoolStore } from './number-pool';
import { TwilioProxyCalling, type ProxySessionStore } from './twilio-proxy';

/**
 * Who gives riders masked numbers, as CALL_MASKING says: the local bridge (development, tests,
 * and staging with ALLOW_SANDBOX_IN_PRODUCTION), a number pool on a voice provider, or Twilio
 * Proxy. Test-mode deliveries are served by robo riders, which never read a job view, so one
 * provider serves both modes.
 */
export function selectCallMasking(
  settings: Settings,
  stores: { local: CallSessionStore; proxy: ProxySessionStore; pool: NumberPoolStore },
): CallMasking {
  if (settings.callMasking === 'number-pool') {
    // The provider's callback (api/providers/voice-callback-routes.ts) asks this same object who a call reaches.
    return new NumberPoolCalling(stores.pool, { numbers: settings.callPoolNumbers });
  }
  if (settings.callMasking === 'twilio-proxy') {
    // loadSettings refuses twilio-proxy without these three.
    return new TwilioProxyCalling(stores.proxy, {
      accountSid: settings.twilioAccountSid as string,
      authToken: settings.twilioAuthToken as string,
      serviceSid: settings.twilioProxyServiceSid as string,
      baseUrl: settings.twilioProxyUrl,
      timeoutMs: settings.twilioTimeoutMs,
    });
  }
  return new LocalCallBridge(stores.local);
}
