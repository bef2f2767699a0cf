export type { CallMasking, CallSession, OpenCallSession } from './masking';
export { LocalCallBridge, type CallOutcome, type CallSessionStore, type PlacedCall, type RoutedSession } from './local-bridge';
export {
  CallProviderUnavailableError,
  TwilioProxyCalling,
  type ProxySessionKey,
  type ProxySessionRecord,
  type ProxySessionStore,
  type TwilioProxyOptions,
} from './twilio-proxy';
export { selectCallMasking } from './select';
