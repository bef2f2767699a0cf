import axios, { type AxiosInstance } from 'axios';
import type { LatLng } from '../../domain/geo';
import type { EtaProvider, LegDurations, RouteSummary, RoutingProvider } from './provider';

export interface OsrmOptions {
  /** e.g. http://osrm.internal:5000 (no trailing path). */
  baseUrl: string;
  /** OSRM serves whichever profile it was built with; the URL segment is usually 'driving'. */
  profile?: string;
  timeoutMs?: number;
}

const DEFAULT_PROFILE = 'driving';
const DEFAULT_TIMEOUT_MS = 5_000;
/** overview=false and steps=false keep answers to a few hundred bytes; anything huge is wrong. */
const MAX_RESPONSE_BYTES = 1_000_000;

export interface DirectionsRoute {
  distance: number;
  duration: number;
  legSeconds: number[];
}

/** Road distance and duration from an OSRM server (self-hosted or public demo). */
export class OsrmRouting implements RoutingProvider, EtaProvider {
  private readonly http: AxiosInstance;
  private readonly routeUrl: string;
  private readonly timeoutMs: number;

  constructor(options: OsrmOptions) {
    const baseUrl = options.baseUrl.trim().replace(/\/+$/, '');
    if (!baseUrl) throw new Error('OSRM baseUrl is required');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(this.timeoutMs > 0)) throw new RangeError(`OSRM timeoutMs must be > 0, got ${options.timeoutMs}`);
    this.routeUrl = `${baseUrl}/route/v1/${encodeURIComponent(options.profile ?? DEFAULT_PROFILE)}/`;
    // Own instance so interceptors added to the global axios elsewhere do not apply here.
    this.http = axios.create({ maxContentLength: MAX_RESPONSE_BYTES, headers: { Accept: 'application/json' } });
  }

  async route(points: LatLng[]): Promise<RouteSummary> {
    if (points.length < 2) return { distanceMeters: 0, durationSeconds: 0, estimated: false };
    const route = await this.fetchRoute(points);
    return { distanceMeters: route.distance, durationSeconds: route.duration, estimated: false };
  }

  async legs(points: LatLng[]): Promise<LegDurations> {
    if (points.length < 2) return { legSeconds: [], estimated: false };
    const route = await this.fetchRoute(points);
    return { legSeconds: route.legSeconds, estimated: false };
  }

  private async fetchRoute(points: LatLng[]): Promise<DirectionsRoute> {
    const url = this.routeUrl + toCoordinatePath(points);
    let status: number;
    let body: unknown;
    try {
      const response = await this.http.get<unknown>(url, {
        params: { overview: 'false', steps: 'false' },
        timeout: this.timeoutMs,
        // `timeout` only bounds socket inactivity; this bounds the whole exchange.
        signal: AbortSignal.timeout(this.timeoutMs),
        // OSRM reports NoRoute, InvalidQuery… as HTTP 400 with a JSON body we want to read.
        validateStatus: () => true,
      });
      status = response.status;
      body = response.data;
    } catch (error) {
      throw new Error(`OSRM route request ${describeRequestFailure(error, this.timeoutMs)}`);
    }
    const { code, message } = readCodeAndMessage(body);
    if (code !== 'Ok') {
      const what = code ?? `HTTP ${status} without an OSRM answer`;
      throw new Error(`OSRM route failed: ${what}${message ? ` (${message})` : ''}`);
    }
    return readFirstRoute(body, points.length - 1, 'OSRM');
  }
}

/**
 * `lng,lat;lng,lat;…`, the order OSRM and Mapbox Directions v5 both expect.
 * Fixed six decimals (~0.1 m) because plain number formatting turns tiny values into
 * exponents such as 1e-7, which the servers reject, and Ghana straddles longitude 0.
 */
export function toCoordinatePath(points: LatLng[]): string {
  return points
    .map((p, i) => {
      if (!(Math.abs(p.lat) <= 90) || !(Math.abs(p.lng) <= 180)) {
        throw new RangeError(`invalid coordinates at point ${i}: ${JSON.stringify(p)}`);
      }
      return `${formatDegrees(p.lng)},${formatDegrees(p.lat)}`;
    })
    .join(';');
}

function formatDegrees(value: number): string {
  // Number() drops trailing zeros and every non-zero result is ≥ 1e-6, so no exponent
  // appears; `+ 0` turns -0 into 0.
  return String(Number(value.toFixed(6)) + 0);
}

/** Why a request got no HTTP answer, without echoing the URL (it may carry credentials). */
export function describeRequestFailure(error: unknown, timeoutMs: number): string {
  if (axios.isAxiosError(error)) {
    // ECONNABORTED/ETIMEDOUT come from `timeout`, ERR_CANCELED from the overall abort signal.
    if (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT' || error.code === 'ERR_CANCELED') {
      return `timed out after ${timeoutMs} ms`;
    }
    if (error.code === 'ERR_BAD_RESPONSE' && /maxContentLength/.test(error.message)) {
      return 'failed: answer too large';
    }
    return `failed: no usable answer (${error.code ?? 'network error'})`;
  }
  return 'failed: unexpected error';
}

export function readCodeAndMessage(body: unknown): { code?: string; message?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const { code, message } = body as { code?: unknown; message?: unknown };
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}

/** Checks the fields we rely on, so a malformed answer fails here and not as a NaN price. */
export function readFirstRoute(body: unknown, expectedLegs: number, service: string): DirectionsRoute {
  const routes = typeof body === 'object' && body !== null ? (body as { routes?: unknown }).routes : undefined;
  const first: unknown = Array.isArray(routes) ? routes[0] : undefined;
  if (typeof first !== 'object' || first === null) throw new Error(`${service} answered Ok without a route`);
  const { distance, duration, legs } = first as { distance?: unknown; duration?: unknown; legs?: unknown };
  if (!isNonNegative(distance) || !isNonNegative(duration)) {
    throw new Error(`${service} route has no valid distance/duration`);
  }
  if (!Array.isArray(legs) || legs.length !== expectedLegs) {
    throw new Error(`${service} route has ${Array.isArray(legs) ? legs.length : 'no'} legs, expected ${expectedLegs}`);
  }
  const legSeconds = legs.map((leg: unknown, i) => {
    const seconds = (leg as { duration?: unknown } | null)?.duration;
    if (!isNonNegative(seconds)) throw new Error(`${service} leg ${i} has no valid duration`);
    return seconds;
  });
  return { distance, duration, legSeconds };
}

function isNonNegative(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
