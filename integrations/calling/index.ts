export type { CallMasking, CallSession, OpenCallSession } from './masking';
export { LocalCallBridge, type CallOutcome, type CallSessionStore, type PlacedCall, type RoutedSession } from './local-bridge';
