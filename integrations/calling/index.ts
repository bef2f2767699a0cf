export type { CallMasking, CallSession, OpenCallSession } from './masking';
export { callRefusal, type CallOutcome, type PlacedCall, type RoutedSession } from './call-routing';
export { LocalCallBridge, type CallSessionStore } from './local-bridge';
export {
  CallProviderUnavailableError,
  TwilioProxyCalling,
  type ProxySessionKey,
  type ProxySessionRecord,
  type ProxySessionStore,
  type TwilioProxyOptions,
} from './twilio-proxy';
export {
  NumberPoolCalling,
  routesIncomingCalls,
  type IncomingCallRouter,
  type NumberPoolOptions,
  type NumberPoolStore,
  type PoolSession,
  type PoolSessionKey,
} from './number-pool';
export { choosePoolNumber } from './pool-number-choice';
export { hasValidTwilioSignature, twilioSignature } from './twilio-signature';
export { africasTalkingAnswers, escapeXml, twimlAnswers, type VoiceAnswers } from './voice-answers';
export { selectCallMasking } from './select';
