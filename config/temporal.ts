import type { Settings } from './settings';

/** One place that turns settings into a Temporal connection: local dev server or Temporal Cloud. */
export function temporalConnectionOptions(settings: Settings): { address: string; tls?: object; apiKey?: string } {
  return {
    address: settings.temporalAddress,
    ...(settings.temporalTls ? { tls: {} } : {}),
    ...(settings.temporalApiKey ? { apiKey: settings.temporalApiKey } : {}),
  };
}
