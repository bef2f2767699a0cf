import axios, { type AxiosInstance } from 'axios';
import type { LatLng } from '../../domain/geo';
import type { EtaProvider, LegDurations } from './provider';
// Mapbox Directions v5 keeps OSRM's URL and response format, so the parsing is shared.
import { describeRequestFailure, readCodeAndMessage, readFirstRoute, toCoordinatePath } from './osrm';

export interface MapboxTrafficEtaOptions {
  accessToken: string;
  /** Overridable for tests and regional endpoints. */
  baseUrl?: string;
  timeoutMs?: number;
}

const DEFAULT_BASE_URL = 'https://api.mapbox.com';
const DEFAULT_TIMEOUT_MS = 5_000;
/** The driving-traffic profile accepts at most 25 coordinates per request. */
const MAX_COORDINATES = 25;
const MAX_RESPONSE_BYTES = 1_000_000;
const MAX_MESSAGE_CHARS = 300;

/** Live, traffic-aware leg durations for rider ETAs on the tracking page. */
export class MapboxTrafficEta implements EtaProvider {
  // A true private field, so logging or serialising the provider cannot print the token.
  readonly #accessToken: string;
  private readonly http: AxiosInstance;
  private readonly directionsUrl: string;
  private readonly timeoutMs: number;

  constructor(options: MapboxTrafficEtaOptions) {
    if (!options.accessToken) throw new Error('Mapbox accessToken is required');
    this.#accessToken = options.accessToken;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(this.timeoutMs > 0)) throw new RangeError(`Mapbox timeoutMs must be > 0, got ${options.timeoutMs}`);
    const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).trim().replace(/\/+$/, '');
    this.directionsUrl = `${baseUrl}/directions/v5/mapbox/driving-traffic/`;
    // Own instance so interceptors added to the global axios (which might log URLs) do not apply.
    this.http = axios.create({ maxContentLength: MAX_RESPONSE_BYTES, headers: { Accept: 'application/json' } });
  }

  async legs(points: LatLng[]): Promise<LegDurations> {
    if (points.length < 2) return { legSeconds: [], estimated: false };
    if (points.length > MAX_COORDINATES) {
      throw new Error(`Mapbox driving-traffic accepts at most ${MAX_COORDINATES} points, got ${points.length}`);
    }
    const url = this.directionsUrl + toCoordinatePath(points);
    let status: number;
    let body: unknown;
    try {
      const response = await this.http.get<unknown>(url, {
        params: { access_token: this.#accessToken, overview: 'false' },
        timeout: this.timeoutMs,
        // `timeout` only bounds socket inactivity; this bounds the whole exchange.
        signal: AbortSignal.timeout(this.timeoutMs),
        // Error bodies ({message}, sometimes {code}) are more useful than axios' generic error.
        validateStatus: () => true,
      });
      status = response.status;
      body = response.data;
    } catch (error) {
      // No `cause`: the axios error holds the request URL and params, token included.
      throw this.error(`Mapbox directions request ${describeRequestFailure(error, this.timeoutMs)}`);
    }
    const { code, message } = readCodeAndMessage(body);
    if (status !== 200 || code !== 'Ok') {
      const what = [status !== 200 ? `HTTP ${status}` : '', code ?? ''].filter(Boolean).join(' ') || 'no code';
      const detail = message ? ` (${message.slice(0, MAX_MESSAGE_CHARS)})` : '';
      throw this.error(`Mapbox directions failed: ${what}${detail}`);
    }
    try {
      return { legSeconds: readFirstRoute(body, points.length - 1, 'Mapbox').legSeconds, estimated: false };
    } catch (error) {
      throw this.error(error instanceof Error ? error.message : 'Mapbox answer unreadable');
    }
  }

  /** Errors get logged, and an upstream message could echo the request URL: mask the token. */
  private error(text: string): Error {
    const token = this.#accessToken;
    return new Error(text.split(token).join('[redacted]').split(encodeURIComponent(token)).join('[redacted]'));
  }
}
